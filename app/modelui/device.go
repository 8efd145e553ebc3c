package modelui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// OpenDevice opens a device ID: one of backends.Devices, "webgpu" (the best adapter) or ""
// (the automatic choice), resolved by backends.Resolve. A $KLEINBILD_BACKEND that names no
// device, or one that fails to open, is ignored as backends.Default ignores it (the app
// says so: envBackendNotice).
func OpenDevice(id string) (gpu.Backend, error) {
	c, err := backends.Resolve(id)
	if err != nil && !c.FromEnv {
		return nil, err
	}
	if err == nil {
		b, err := backends.Open(c.ID)
		if err == nil || !c.FromEnv {
			return b, err
		}
	}
	return backends.Default(), nil // $KLEINBILD_BACKEND ignored, as Default ignores it
}

// DeviceReporter is implemented by generators that know the device they run on (the
// engine's models, through their backend).
type DeviceReporter interface {
	ComputeDevice() (backend string, info gpu.DeviceInfo)
}

// ComputeDevice names the backend and device the model runs on.
func (m *ownedModel) ComputeDevice() (string, gpu.DeviceInfo) { return m.b.Name(), m.b.Info() }

// deviceState is the compute device choice (UI goroutine).
type deviceState struct {
	// List is what backends.Devices found; probed is false until the probe has returned.
	List   []backends.Device
	Probed bool
	// choice is the device chosen ("" automatic): the saved preference, or Options.Backend
	// for this session.
	choice string
	// fallback, when set, is the GPU failure that moved generations to the CPU until the
	// user chooses a device again; the saved preference stays.
	fallback string
	// sel, note and retry are the settings' widgets while the model dialog is open.
	sel   *widgets.EscapeSelect
	note  *widget.Label
	retry *fyne.Container
	// precision is the precision select while the model dialog is open (precision.go).
	precision *widgets.EscapeSelect
	// labels maps the select's options to device IDs.
	labels map[string]string
}

// EffectiveDevice is the device ID the next model is opened on.
func (m *Model) EffectiveDevice() string {
	if m.Dev.fallback != "" {
		return backends.CPUID()
	}
	return m.Dev.choice
}

// probeDevices lists the devices off the UI goroutine (probing GPU adapters takes about
// 100 ms) and then shows them.
func (m *Model) ProbeDevices() {
	list := m.devices
	if list == nil {
		list = backends.Devices
	}
	env := backends.EnvID()
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		ds := list()
		m.sh.Post(func() {
			m.Dev.List, m.Dev.Probed = ds, true
			m.refreshDeviceSelect()
			m.DeviceChanged()
			if msg := m.envBackendNotice(env); msg != "" {
				m.sh.AddNotice(msg)
			}
		})
	}()
}

// envBackendNotice says that env, the value of $KLEINBILD_BACKEND, names no device found
// (which backends.Default silently replaces), and which device is used instead; it is ""
// when env is unset, "default" or a device of the list (an ID, or a backend name such as
// "webgpu" or "openblas"). Call it once the devices are probed.
func (m *Model) envBackendNotice(env string) string {
	env = strings.TrimSpace(env)
	if env == "" || strings.EqualFold(env, "default") {
		return ""
	}
	for _, d := range m.Dev.List {
		if strings.EqualFold(d.ID, env) || strings.EqualFold(d.Backend, env) {
			return ""
		}
	}
	instead := "the automatic choice"
	if d, ok := m.DeviceFor(m.EffectiveDevice()); ok {
		instead = d.Label()
	} else if c := m.EffectiveDevice(); c != "" {
		instead = c
	}
	return fmt.Sprintf("$%s=%q is not a compute device on this computer, so it is ignored: using %s instead. "+
		"'kleinbild devices' lists the devices.", backends.EnvBackend, env, instead)
}

// DeviceFor finds the device an ID stands for: "" the automatic one, a backend name its
// first device; ok is false when it is not (yet) known.
func (m *Model) DeviceFor(id string) (backends.Device, bool) {
	for _, d := range m.Dev.List {
		switch {
		case id == "" && d.Auto,
			id != "" && strings.EqualFold(d.ID, id):
			return d, true
		}
	}
	for _, d := range m.Dev.List {
		if id != "" && strings.EqualFold(d.Backend, id) {
			return d, true
		}
	}
	return backends.Device{}, false
}

// GpuBackendOf is the backend name of id when it is a GPU device, else "".
func (m *Model) GpuBackendOf(id string) string {
	if d, ok := m.DeviceFor(id); ok {
		if d.Info.Kind == gpu.KindCPU {
			return ""
		}
		return d.Backend
	}
	if name, _, ok := strings.Cut(id, ":"); ok {
		return strings.ToLower(name) // "webgpu:N" of an adapter not listed (any more)
	}
	return ""
}

// DeviceFailure reports whether err is a failure of the GPU a generation ran on: gen's
// device when it reports one, else gpuName (the backend of the device that was to be
// opened; "" for a CPU). GPU backends return their failures as a *gpu.DeviceError, which
// the engine wraps.
func DeviceFailure(err error, gen Generator, gpuName string) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if r, ok := gen.(DeviceReporter); ok {
		name, info := r.ComputeDevice()
		gpuName = ""
		if info.Kind != gpu.KindCPU {
			gpuName = name
		}
	}
	return gpuName != "" && gpu.IsDeviceError(err)
}

// FallBackToCPU makes the next generations use the CPU after the GPU failed with msg, and
// says so (UI goroutine).
func (m *Model) FallBackToCPU(msg string) {
	m.Dev.fallback = msg
	m.sh.Banner.Show(fmt.Sprintf("The GPU failed: %s. The next run uses the CPU.", strings.TrimSuffix(msg, ".")), true)
	m.refreshDeviceSelect()
	m.DeviceChanged()
}

// DeviceChoice is the device the user chose ("" automatic), whatever a fallback says.
func (m *Model) DeviceChoice() string { return m.Dev.choice }

// useCPU makes the next generations use the CPU because the GPU cannot run them (reason),
// as fallBackToCPU does after a failure, and says so (UI goroutine).
func (m *Model) UseCPU(reason string) {
	m.Dev.fallback = reason
	m.sh.Banner.Show(fmt.Sprintf("%s. Generations use the CPU until you choose a device in the model settings.", reason), false)
	m.refreshDeviceSelect()
	m.DeviceChanged()
}

// ChooseDevice makes id ("" automatic) the device of the next generations and remembers it;
// it ends a CPU fallback.
func (m *Model) ChooseDevice(id string) {
	if id == m.Dev.choice && m.Dev.fallback == "" {
		return
	}
	m.Dev.choice, m.Dev.fallback = id, ""
	m.sh.Settings.Device = id
	m.sh.Remember(m.sh.Settings)
	m.refreshDeviceSelect()
	m.DeviceChanged()
}

// autoLabel is the select's first option.
func (m *Model) autoLabel() string {
	if d, ok := m.DeviceFor(""); ok {
		return "Automatic (" + d.Label() + ")"
	}
	return "Automatic"
}

// choiceLabel is the select's option for a device ID that is not in the list.
func choiceLabel(id string) string {
	if strings.EqualFold(id, "webgpu") {
		return "webgpu — the best GPU adapter"
	}
	return id + " — not found on this computer"
}

// newDeviceSection builds the "Compute device" settings; release forgets its widgets when
// the dialog closes.
func (m *Model) newDeviceSection() (box fyne.CanvasObject, release func()) {
	sel := widgets.NewEscapeSelect(nil, nil)
	sel.PlaceHolder = "Looking for devices…"
	note := widget.NewLabel("")
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	retry := widget.NewButton("Try the GPU again", func() {
		m.ChooseDevice(m.Dev.choice)
	})
	m.Dev.sel, m.Dev.note = sel, note
	retryBox := container.NewHBox(retry)
	m.Dev.retry = retryBox
	m.refreshDeviceSelect()
	box = container.NewVBox(shell.SectionTitle("Compute device"), sel, note, retryBox, m.newPrecisionSelect())
	return box, func() {
		if m.Dev.sel == sel {
			m.Dev.sel, m.Dev.note, m.Dev.retry, m.Dev.precision = nil, nil, nil, nil
		}
	}
}

// refreshDeviceSelect shows the devices and the choice in the open settings (UI goroutine).
func (m *Model) refreshDeviceSelect() {
	sel := m.Dev.sel
	if sel == nil {
		return
	}
	sel.OnChanged = nil
	if !m.Dev.Probed {
		sel.Options = nil
		sel.Disable()
		m.setDeviceNote()
		sel.Refresh()
		return
	}
	m.Dev.labels = map[string]string{}
	opts := []string{m.autoLabel()}
	m.Dev.labels[opts[0]] = ""
	current := opts[0]
	for _, d := range m.Dev.List {
		l := d.Label()
		opts = append(opts, l)
		m.Dev.labels[l] = d.ID
		if m.Dev.choice != "" && strings.EqualFold(d.ID, m.Dev.choice) {
			current = l
		}
	}
	if c := m.Dev.choice; c != "" && current == opts[0] {
		l := choiceLabel(c)
		opts = append(opts, l)
		m.Dev.labels[l] = c
		current = l
	}
	sel.Options = opts
	sel.Enable()
	sel.SetSelected(current)
	sel.OnChanged = func(label string) {
		if id, ok := m.Dev.labels[label]; ok {
			m.ChooseDevice(id)
		}
	}
	m.setDeviceNote()
	m.refreshPrecision()
	sel.Refresh()
}

// setDeviceNote explains the choice under the select: a CPU fallback in force, or what the
// devices are.
func (m *Model) setDeviceNote() {
	note, retry := m.Dev.note, m.Dev.retry
	if note == nil {
		return
	}
	if msg := m.Dev.fallback; msg != "" {
		note.SetText("Using the CPU for now: the GPU failed (" + msg + "). Your choice is kept for the next start.")
		note.Importance = widget.WarningImportance
		retry.Show()
	} else {
		note.SetText("The model is opened on this device for the next generation. Automatic uses a graphics card when there is one, else the processor.")
		note.Importance = widget.MediumImportance
		retry.Hide()
	}
	note.Refresh()
}

// CalibrationPath is where the kernel speeds of b's device are kept: one file per backend
// and device next to estimate.DefaultCalibrationPath, e.g.
// calibration-webgpu-nvidia-h100-80gb-hbm3.json, so switching devices keeps each one's.
func CalibrationPath(b gpu.Backend) (string, error) {
	def, err := estimate.DefaultCalibrationPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(def), "calibration-"+Slug(b.Name()+"-"+b.Info().Name)+".json"), nil
}

// Slug is s in lower case with runs of anything but letters and digits as one "-".
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if len(out) > 80 {
		out = out[:80]
	}
	if out == "" {
		out = "device"
	}
	return out
}
