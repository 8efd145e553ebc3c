package uitest

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// FakeDevices stands in for backends.Devices: two CPU backends (the first automatic) and a
// discrete GPU with 8 GB.
func FakeDevices() []backends.Device {
	return []backends.Device{
		{ID: "openblas", Backend: "openblas", Auto: true, Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "OpenBLAS", MemoryBytes: 16e9}},
		{ID: "purego", Backend: "purego", Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "Go (gonum)", MemoryBytes: 16e9}},
		{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan", MemoryBytes: 8e9}},
	}
}

// FakeHome points HOME and XDG_CONFIG_HOME at a new folder with a Pictures folder named in
// user-dirs.dirs; it returns home and the pictures folder.
func FakeHome(t testing.TB) (home, pictures string) {
	t.Helper()
	home = t.TempDir()
	pictures = filepath.Join(home, "Bilder")
	if err := os.MkdirAll(pictures, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".config")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "user-dirs.dirs"), []byte("# written by xdg-user-dirs-update\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	return home, pictures
}

// TypeKey types a key on canvas c as the window does: to the focused widget when there is
// one, else to the canvas.
func TypeKey(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

// Key types a key on canvas c as the window does when no widget has the focus.
func Key(c fyne.Canvas, name fyne.KeyName) {
	c.OnTypedKey()(&fyne.KeyEvent{Name: name})
}
