package engine

import (
	"context"
	"sync"
	"testing"

	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// deviceMemory makes a CPU backend look like a device to the engine: Info reports a discrete
// GPU, and Memory counts the weights it views as resident, as a device that copies them
// would hold them (peak included).
type deviceMemory struct {
	gpu.Backend
	mu      sync.Mutex
	peak    int64
	weights int // weight tensors made
}

func (d *deviceMemory) Info() gpu.DeviceInfo {
	i := d.Backend.Info()
	i.Kind = gpu.KindDiscrete
	// Memory unknown, as on most drivers: the encoder makes way for the transformer
	// (residentOnDevice, tested on its own, keeps it where the memory holds both).
	i.MemoryBytes = 0
	return i
}

func (d *deviceMemory) resident() int64 {
	s := d.Backend.Memory()
	return s.Resident + s.Viewed
}

// note raises the peak to the bytes held now (after every call that can raise them).
func (d *deviceMemory) note() {
	d.mu.Lock()
	d.peak = max(d.peak, d.resident())
	d.mu.Unlock()
}

func (d *deviceMemory) Memory() gpu.MemStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return gpu.MemStats{Resident: d.resident(), Peak: d.peak}
}

func (d *deviceMemory) ResetPeak() {
	d.mu.Lock()
	d.peak = d.resident()
	d.mu.Unlock()
}

func (d *deviceMemory) Alloc(dt gpu.DType, shape ...int) (gpu.Tensor, error) {
	defer d.note()
	return d.Backend.Alloc(dt, shape...)
}

func (d *deviceMemory) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	defer d.note()
	d.weights++
	return d.Backend.WeightF32(data, shape...)
}

func (d *deviceMemory) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	defer d.note()
	d.weights++
	return d.Backend.WeightBF16(bits, shape...)
}

// TestDevicePeakMemory: on a device backend the text encoder and the transformer+VAE are
// never resident together (issue 17 item 7d), so the text stage of a generation whose prompts
// must be encoded peaks at the larger of the two (encoder with its activations, transformer
// and VAE), not their sum; the results stay those of the golden case (the transformer and VAE are
// loaded again after encoding), and a cached prompt leaves the transformer loaded.
func TestDevicePeakMemory(t *testing.T) {
	c := pipelineCases[4] // base, CFG: the prompt and the empty prompt are encoded
	if !c.base || c.refs != nil {
		t.Fatalf("case %s is not the text-to-image CFG case", c.name)
	}
	dir := golden.TinyBaseModel(t)
	cpu := backends.Default()
	if cpu.Info().Kind != gpu.KindCPU {
		t.Skipf("backend %s is not a CPU backend", cpu.Name())
	}
	src, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	encPeak := encoderPeak(t, src, cpu, c.prompt)

	dev := &deviceMemory{Backend: cpu}
	m, err := Open(dir, dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	denoiser := dev.Memory().Resident // the transformer's and VAE's weights

	f := golden.Open(t, "pipeline/"+c.name+".safetensors")
	want, _ := golden.F32(t, f, "vae_decode_output")
	var image []float32
	var textPeak int64
	req := Request{Settings: Settings{Prompt: c.prompt, Width: c.width, Height: c.height, Steps: c.steps, Seed: c.seed},
		Dump: func(name string, _ []int, data []float32) error {
			switch name {
			case "prompt_embeds": // dumped at the end of the text stage
				textPeak = dev.Memory().Peak
			case "image":
				image = append([]float32(nil), data...)
			}
			return nil
		}}
	// run generates req, checks the image and returns the peak of the run.
	run := func() int64 {
		dev.ResetPeak()
		if _, err := m.Generate(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		golden.Compare(t, "decoded image", image, want, 1e-5)
		return dev.Memory().Peak
	}
	peak := run()
	t.Logf("weights of transformer+VAE %d B; encoder alone (peak) %d B; peak of the text stage %d B, of the run %d B", denoiser, encPeak, textPeak, peak)
	if bound := max(encPeak, denoiser); textPeak > bound {
		t.Errorf("text stage peaked at %d B, want at most max(encoder %d B, transformer+VAE %d B)", textPeak, encPeak, denoiser)
	}

	made := dev.weights
	run() // the prompts now come from the cache
	if n := dev.weights - made; n != 0 {
		t.Errorf("a run with cached prompts made %d weight tensors, want 0 (the transformer and VAE stay loaded)", n)
	}
}

// encoderPeak returns the peak bytes of the text encoder of src alone on b (as a device):
// its weights and activations while encoding prompt.
func encoderPeak(t *testing.T, src Source, b gpu.Backend, prompt string) int64 {
	t.Helper()
	dev := &deviceMemory{Backend: b}
	enc, err := loadEncoder(src, dev)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	tok, err := src.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	ids, mask := tok.EncodeChat(prompt, tokenizer.MaxLength)
	if _, err := enc.Encode(context.Background(), ids, mask, qwen3.DefaultLayers, nil); err != nil {
		t.Fatal(err)
	}
	return dev.Memory().Peak
}
