package estimate

import (
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/gpu"
)

// TestCheckDeviceLimits: klein-4B at 512² failed in step 1 on an H200 opened with 256 MiB
// buffers, when the transformer's activations were one 289.7 MB buffer. They are separate
// tensors now, the largest the fused projection (162.0 MB), so the largest buffer at 512² is
// the VAE decoder's 256.0 MB. The check refuses that device before the run (the fused
// projection exceeds its 128 MiB bindings) and one with smaller buffers, naming the buffer
// and the limit, and accepts 512² with 256 MiB buffers and bindings, 256², the device's real
// limits and the CPU.
func TestCheckDeviceLimits(t *testing.T) {
	m, err := Preset("klein-4B", true)
	if err != nil {
		t.Fatal(err)
	}
	small := gpu.DeviceInfo{Name: "0x2335", Kind: gpu.KindDiscrete, MaxBufferBytes: 256 << 20, MaxBindingBytes: 128 << 20}
	d, err := Buffers(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := mb(d.Buffer); got != "256.0 MB" || d.BufferWhat != "the VAE decoder's activations" {
		t.Errorf("512² largest buffer %s (%s), want the VAE decoder's 256.0 MB", got, d.BufferWhat)
	}
	if got := mb(d.Binding); got != "162.0 MB" {
		t.Errorf("512² widest binding %s (%s), want 162.0 MB", got, d.BindingWhat)
	}
	err = CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, small)
	if err == nil || !strings.Contains(err.Error(), "162.0 MB") || !strings.Contains(err.Error(), "128.0 MB per binding") {
		t.Errorf("512² on a 256 MiB device: %v", err)
	}
	buf := gpu.DeviceInfo{Name: "x", Kind: gpu.KindDiscrete, MaxBufferBytes: 200 << 20, MaxBindingBytes: 200 << 20}
	err = CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, buf)
	if err == nil || !strings.Contains(err.Error(), "256.0 MB") || !strings.Contains(err.Error(), "200.0 MB per buffer") {
		t.Errorf("512² on 200 MiB buffers: %v", err)
	}
	fits := gpu.DeviceInfo{Name: "x", Kind: gpu.KindDiscrete, MaxBufferBytes: 256 << 20, MaxBindingBytes: 256 << 20}
	if err := CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, fits); err != nil {
		t.Errorf("512² on 256 MiB buffers and bindings: %v", err)
	}
	// The binding limit alone: a large buffer limit, the default 128 MiB binding.
	bind := small
	bind.MaxBufferBytes = 80 << 30
	if err := CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, bind); err == nil || !strings.Contains(err.Error(), "per binding") {
		t.Errorf("512² on a 128 MiB binding: %v", err)
	}
	if err := CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}}, gpu.DeviceInfo{Name: "x", Kind: gpu.KindDiscrete, MaxBufferBytes: 256 << 20, MaxBindingBytes: 256 << 20}); err != nil {
		t.Errorf("256²: %v", err)
	}
	h200 := gpu.DeviceInfo{Name: "NVIDIA H200", Kind: gpu.KindDiscrete, MaxBufferBytes: 140 << 30, MaxBindingBytes: 2 << 30}
	if err := CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 1024, Height: 1024}}}, h200); err != nil {
		t.Errorf("1024² on the H200's real limits: %v", err)
	}
	if err := CheckDevice(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 1024, Height: 1024}}}, gpu.DeviceInfo{Kind: gpu.KindCPU}); err != nil {
		t.Errorf("CPU: %v", err)
	}
}
