package webgpu

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDeviceMemorySources: the amdgpu sysfs entry of the card with the adapter's PCI IDs and
// MemTotal of a meminfo file are read; other cards, malformed files and missing ones give 0.
func TestDeviceMemorySources(t *testing.T) {
	root := t.TempDir()
	card := func(name, vendor, device, vram string) {
		d := filepath.Join(root, name, "device")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range map[string]string{"vendor": vendor, "device": device, "mem_info_vram_total": vram} {
			if v != "" {
				os.WriteFile(filepath.Join(d, f), []byte(v+"\n"), 0o644)
			}
		}
	}
	card("card0", "0x8086", "0x56a0", "")            // Intel: no entry
	card("card1", "0x1002", "0x73bf", "17163091968") // AMD RX 6800
	card("card2", "0x1002", "0x744c", "garbage")
	glob := filepath.Join(root, "card*", "device")
	if got := sysfsVRAM(glob, 0x1002, 0x73bf); got != 17163091968 {
		t.Errorf("AMD card: %d bytes", got)
	}
	for _, c := range [][2]uint32{{0x8086, 0x56a0}, {0x1002, 0x744c}, {0x10de, 0x2684}} {
		if got := sysfsVRAM(glob, c[0], c[1]); got != 0 {
			t.Errorf("card %04x:%04x: %d bytes, want 0 (unknown)", c[0], c[1], got)
		}
	}
	mi := filepath.Join(root, "meminfo")
	os.WriteFile(mi, []byte("MemTotal:       32768000 kB\nMemFree: 1 kB\n"), 0o644)
	if got := hostRAM(mi); got != 32768000<<10 {
		t.Errorf("hostRAM: %d", got)
	}
	os.WriteFile(mi, []byte("MemTotal: lots\n"), 0o644)
	if got := hostRAM(mi); got != 0 {
		t.Errorf("malformed meminfo: %d, want 0", got)
	}
	if got := hostRAM(filepath.Join(root, "missing")); got != 0 {
		t.Errorf("missing meminfo: %d", got)
	}
}
