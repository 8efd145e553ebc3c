package modelui

import (
	"fmt"
	"strings"

	"kleinbild/app/widgets"
	"kleinbild/gpu"
)

// The precision select's options (issue 34: the app's device setting names the precision).
const (
	precisionExactLabel = "Exact"
	precisionFastLabel  = "Fast (matrix units)"
)

// fastSuffix marks a device ID opened in the fast precision ("vulkan:0+fast"), as the
// runner hands it to the opener.
const fastSuffix = "+fast"

// WithPrecision is the device string the opener gets for id in precision p.
func WithPrecision(id string, p gpu.Precision) string {
	if p == gpu.PrecisionFast {
		return id + fastSuffix
	}
	return id
}

// DeviceID is the device ID of a WithPrecision string, and precisionOf its precision.
func DeviceID(device string) string { return strings.TrimSuffix(device, fastSuffix) }

func precisionOf(device string) gpu.Precision {
	if strings.HasSuffix(device, fastSuffix) {
		return gpu.PrecisionFast
	}
	return gpu.PrecisionExact
}

// openDevicePrecision opens a WithPrecision device string: the device (OpenDevice), put in
// the fast precision when asked.
func openDevicePrecision(device string) (gpu.Backend, error) {
	b, err := OpenDevice(DeviceID(device))
	if err != nil || precisionOf(device) == gpu.PrecisionExact {
		return b, err
	}
	pb, ok := b.(gpu.Precisioner)
	if !ok {
		return b, nil // the device changed under the choice (a fallback): exact, as every backend runs
	}
	if _, err := pb.SetPrecision(gpu.PrecisionFast); err != nil {
		b.Close()
		return nil, fmt.Errorf("the fast precision: %w", err)
	}
	return b, nil
}

// matrixUnits describes the matrix units of device id ("" for none or unknown).
func (m *Model) matrixUnits(id string) string {
	if d, ok := m.DeviceFor(id); ok {
		return d.MatrixUnits
	}
	return ""
}

// RunPrecision is the precision of the next run: fast on a device with matrix units unless
// the user chose exact, else exact (the only one other devices have).
func (m *Model) RunPrecision() gpu.Precision {
	if m.matrixUnits(m.EffectiveDevice()) == "" || m.sh.Settings.Precision == string(gpu.PrecisionExact) {
		return gpu.PrecisionExact
	}
	return gpu.PrecisionFast
}

// newPrecisionSelect builds the settings' precision select, enabled only where the device
// has matrix units.
func (m *Model) newPrecisionSelect() *widgets.EscapeSelect {
	m.Dev.precision = widgets.NewEscapeSelect([]string{precisionExactLabel, precisionFastLabel}, nil)
	m.refreshPrecision()
	return m.Dev.precision
}

// refreshPrecision shows the precision the next run uses and whether it can be chosen.
func (m *Model) refreshPrecision() {
	s := m.Dev.precision
	if s == nil {
		return
	}
	s.OnChanged = nil
	label := precisionExactLabel
	if m.RunPrecision() == gpu.PrecisionFast {
		label = precisionFastLabel
	}
	s.SetSelected(label)
	if m.matrixUnits(m.EffectiveDevice()) == "" {
		s.Disable()
	} else {
		s.Enable()
	}
	s.OnChanged = func(l string) {
		p := gpu.PrecisionExact
		if l == precisionFastLabel {
			p = gpu.PrecisionFast
		}
		m.choosePrecision(p)
	}
}

// choosePrecision makes p the precision of the next runs on devices with matrix units and
// remembers it.
func (m *Model) choosePrecision(p gpu.Precision) {
	if m.sh.Settings.Precision == string(p) {
		return
	}
	m.sh.Settings.Precision = string(p)
	m.sh.Remember(m.sh.Settings)
	m.DeviceChanged()
}
