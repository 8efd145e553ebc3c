package cli

import (
	"bytes"
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// smallGPU is a CPU backend that describes itself as a GPU with a tiny buffer limit.
type smallGPU struct {
	gpu.Backend
	closed bool
}

func (s *smallGPU) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Name: "tiny card", Kind: gpu.KindDiscrete, MaxBufferBytes: 4096, MaxBindingBytes: 4096}
}

func (s *smallGPU) Close() error { s.closed = true; return s.Backend.Close() }

// TestFitDeviceRefusesSmallBuffers: a device whose buffer limit is below the tiny model's
// activations is refused before the model opens: an error naming the limit when the user
// chose it, the CPU with a notice when it was the default.
func TestFitDeviceRefusesSmallBuffers(t *testing.T) {
	src, err := engine.OpenModelSource(golden.TinyModel(t), engine.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	req := estimate.Request{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}}
	chosen := &smallGPU{Backend: backends.DefaultCPU()}
	_, err = fitDevice(chosen, true, src, req, &bytes.Buffer{})
	chosen.Close()
	if err == nil || !strings.Contains(err.Error(), "per buffer") {
		t.Errorf("chosen device: %v", err)
	}
	def := &smallGPU{Backend: backends.DefaultCPU()}
	var stderr bytes.Buffer
	b, err := fitDevice(def, false, src, req, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Info().Kind != gpu.KindCPU || !def.closed || !strings.Contains(stderr.String(), "running on the CPU") {
		t.Errorf("default device: got %s (%s), closed %v, stderr %q", b.Name(), b.Info().Kind, def.closed, stderr.String())
	}
	// A device with room keeps the run.
	big := &smallGPU{Backend: backends.DefaultCPU()}
	defer big.Close()
	if got, err := fitDevice(wideGPU{big}, true, src, req, &stderr); err != nil || got.Info().Name != "wide card" {
		t.Errorf("wide device: %v, %v", got, err)
	}
}

type wideGPU struct{ *smallGPU }

func (w wideGPU) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Name: "wide card", Kind: gpu.KindDiscrete, MaxBufferBytes: 1 << 30, MaxBindingBytes: 1 << 30}
}
