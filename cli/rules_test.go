package cli

import (
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/internal/testfix"
	"kleinbild/weights/golden"
)

// TestGenerateFlagsReadDecimal: whole-number flags read decimal (c20726f read -W 0064 as
// octal 52 and refused it, and ran -s 010 as 8 steps), -S takes any uint64 (it was an
// int64), and the help names the flags' types as before.
func TestGenerateFlagsReadDecimal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	code, stdout, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "0064", "-H", "080",
		"-s", "010", "-S", "18446744073709551615", "--no-cache", "-q", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout+errOut, "Seed: 18446744073709551615") {
		t.Errorf("seed not printed: %q %q", stdout, errOut)
	}
	img, err := imageio.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := imageio.ReadMetadata(out)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 80 || meta.Steps != 10 || meta.Seed != 1<<64-1 {
		t.Errorf("%dx%d, %d steps, seed %d; want 64x80, 10 steps, seed 2^64-1", b.Dx(), b.Dy(), meta.Steps, meta.Seed)
	}
	for _, bad := range [][]string{{"-W", "0x40"}, {"-s", "1_0"}, {"-S", "-2"}, {"-S", "18446744073709551616"}} {
		if code, _, errOut := run(t, "generate", "-d", "/nonexistent", "-p", "x", bad[0], bad[1], "-o", out); code != 2 || !strings.Contains(errOut, "invalid value") {
			t.Errorf("%s %s: exit %d: %s", bad[0], bad[1], code, errOut)
		}
	}
	_, _, help := run(t, "generate", "-h")
	for _, want := range []string{"\n  -S int\n    \tseed (default: random; always printed) (default -1)\n", "\n  -W int\n", "\n  -s int\n", "\n  -quality int\n    \tJPEG quality 1..100 (for -o NAME.jpg) (default 92)\n", "\n  -g float\n", "\n  -o string\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// TestFitSeesPicture: generate prices the request it runs, --image's size included: a
// device that holds the default 256² but not a 1024² picture's output is refused for
// `generate --image big.png` (c20726f fitted a partial request without the picture, at
// 256²).
func TestFitSeesPicture(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.png")
	testfix.SavePNG(t, big, image.NewGray(image.Rect(0, 0, 1024, 1024)))
	fs := newFlags("generate", &strings.Builder{})
	inp := addInpaintFlags(fs)
	if _, err := parse(fs, []string{"--image", big}); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{"image": true}
	if err := inp.check(set, nil, false, true, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Settings: engine.Settings{Prompt: "x"}}
	inp.fill(&req)
	src, err := engine.OpenModelSource(golden.TinyModel(t), engine.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimate.ForSource(src)
	if err != nil {
		t.Fatal(err)
	}
	small, err := estimate.Buffers(m, estimate.Request{Req: engine.Request{Settings: engine.Settings{Prompt: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	dev := &limitGPU{Backend: backends.DefaultCPU(), limit: max(small.Buffer, small.Binding)}
	defer dev.Close()
	_, err = fitDevice(dev, true, src, inp.fitRequest(req), &strings.Builder{})
	var fe *estimate.FitError
	if !errors.As(err, &fe) || fe.Width != 1024 || fe.Height != 1024 || fe.Device != "limited card" {
		t.Errorf("a 1024² picture on a device that holds 256²: %v, want an *estimate.FitError at 1024×1024", err)
	}
}

// limitGPU is a CPU backend that describes itself as a GPU with the given buffer limit.
type limitGPU struct {
	gpu.Backend
	limit int64
}

func (l *limitGPU) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Name: "limited card", Kind: gpu.KindDiscrete, MaxBufferBytes: l.limit, MaxBindingBytes: l.limit}
}

// TestGenerateRandomSeedAsApp: without -S, generate draws its seed as the app does
// (engine.RandomSeed, at most engine.MaxRandomSeed; c20726f drew 63 bits).
func TestGenerateRandomSeedAsApp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	code, stdout, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-s", "1", "--no-cache", "-q", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var seed uint64
	if _, err := fmt.Sscanf(strings.TrimSpace(stdout+errOut), "Seed: %d", &seed); err != nil || seed > engine.MaxRandomSeed {
		t.Errorf("seed %d (%v) from %q, want one in 0..%d", seed, err, stdout+errOut, uint64(engine.MaxRandomSeed))
	}
}
