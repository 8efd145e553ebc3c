package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestDevicesTable: a header, then one tab-separated line of 11 fields per device; the CPU
// backends are always listed and exactly one device is the default.
func TestDevicesTable(t *testing.T) {
	code, out, errOut := run(t, "devices")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != devicesHeader {
		t.Fatalf("header %q, want %q", lines[0], devicesHeader)
	}
	ids := map[string][]string{}
	defaults := 0
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 11 {
			t.Fatalf("line %q has %d fields, want 11", l, len(f))
		}
		ids[f[0]] = f
		switch f[7] {
		case "*":
			defaults++
		case "":
		default:
			t.Errorf("line %q: DEFAULT column %q, want * or empty", l, f[7])
		}
		if f[1] == "software" && f[7] == "*" {
			t.Errorf("a software adapter is the default: %q", l)
		}
	}
	if f, ok := ids["purego"]; !ok || f[1] != "cpu" {
		t.Errorf("purego missing or not a cpu: %v\n%s", f, out)
	}
	if defaults != 1 {
		t.Errorf("%d defaults, want 1:\n%s", defaults, out)
	}
	t.Logf("\n%s", out)
}

// TestDevicesDefaultNotes: with no measurement in the tuning cache, each WebGPU adapter's
// note on stderr says the default runs the card on WebGPU and why, and --json carries the same.
func TestDevicesDefaultNotes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errOut := run(t, "devices")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, js, _ := run(t, "devices", "--json")
	var ds []map[string]any
	if err := json.Unmarshal([]byte(js), &ds); err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		id, _ := d["id"].(string)
		if d["backend"] != "webgpu" {
			if _, ok := d["default_uses"]; ok {
				t.Errorf("%s: default_uses on a non-WebGPU device", id)
			}
			continue
		}
		if d["default_uses"] != id || !strings.Contains(fmt.Sprint(d["default_why"]), "Vulkan") {
			t.Errorf("%s: default_uses %v (%v), want itself and a reason", id, d["default_uses"], d["default_why"])
		}
		note := fmt.Sprintf("Note: %s (", id)
		if !strings.Contains(errOut, note) || !strings.Contains(errOut, "the automatic default runs this card on "+id+" (") {
			t.Errorf("no note for %s:\n%s", id, errOut)
		}
	}
	if strings.Contains(out, "Note: ") {
		t.Errorf("notes in the table:\n%s", out)
	}
}

func TestDevicesJSON(t *testing.T) {
	code, out, errOut := run(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ds []map[string]any
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	keys := []string{"id", "backend", "name", "kind", "api", "memory_bytes", "max_buffer_bytes", "max_binding_bytes", "default", "gflops", "cpu_gflops"}
	found := false
	for _, d := range ds {
		for _, k := range keys {
			if _, ok := d[k]; !ok {
				t.Errorf("device %v lacks %q", d["id"], k)
			}
		}
		if d["id"] == "purego" && d["kind"] == "cpu" && d["backend"] == "purego" {
			found = true
		}
	}
	if !found {
		t.Errorf("no purego cpu device in %s", out)
	}
	if code, _, _ := run(t, "devices", "extra"); code != 2 {
		t.Errorf("devices extra: exit %d, want 2", code)
	}
}

// TestBackendOpenErrors: a known device that cannot be opened fails with exit 1 and says
// which; a malformed or unknown one is a usage error. Nothing is written.
func TestBackendOpenErrors(t *testing.T) {
	tiny := golden.TinyModel(t)
	out := filepath.Join(t.TempDir(), "o.png")
	for _, cmd := range [][]string{
		{"generate", "-d", tiny, "-p", "x", "-o", out},
		{"encode", "-d", tiny, "-p", "x", "-o", out + ".safetensors"},
		{"bench", "--model", tiny, "--sizes", "32", "--steps", "1", "--json", ""},
	} {
		for _, id := range []string{"webgpu:99", "webgpu:x", "abacus"} {
			code, _, errOut := run(t, append(cmd, "--backend", id)...)
			if code == 0 || !strings.Contains(errOut, id) || !strings.Contains(errOut, "kleinbild devices") {
				t.Errorf("%s --backend %s: exit %d, stderr %q", cmd[0], id, code, errOut)
			}
			if id != "webgpu:99" && code != 2 {
				t.Errorf("%s --backend %s: exit %d, want 2 (usage)", cmd[0], id, code)
			}
			if strings.Contains(errOut, "backends: ") {
				t.Errorf("%s --backend %s: registry prefix in %q", cmd[0], id, errOut)
			}
		}
	}
}

// TestGenerateVerbosePrintsDevice: -v names the device once, before the work starts.
func TestGenerateVerbosePrintsDevice(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-S", "1",
		"--no-cache", "--backend", "purego", "-v", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, "Device: "); n != 1 || !strings.HasPrefix(errOut, "Device: purego ") || !strings.Contains(errOut, "(cpu, ") {
		t.Errorf("want one leading \"Device: purego ... (cpu, ...)\" line, got %d:\n%s", n, errOut)
	}
	_, _, errOut = run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-S", "1",
		"--no-cache", "--backend", "purego", "-o", out)
	if strings.Contains(errOut, "Device: ") {
		t.Errorf("the device line without -v:\n%s", errOut)
	}
}
