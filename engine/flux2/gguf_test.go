package flux2

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/assemble"
	"kleinbild/weights/golden"
)

// TestGGUFForward runs the golden transformer forwards of gguf/cases with weights read by
// assemble.OpenTransformer: the ComfyUI-GGUF Q8_0/Q4_0/BF16/F32 mix, the stable-diffusion.cpp
// Q8_0/Q4_K/F16 file and the BFL single file, each on a text-to-image and an image-to-image
// input, at rel-L2 outputTol (the reference's float32 vs float64 max abs is ~4e-6). The
// weights of the diffusers folder miss these outputs by far more (checked as a control).
func TestGGUFForward(t *testing.T) {
	in := golden.Open(t, "gguf/cases/transformer_forward_inputs.safetensors")
	for _, c := range []struct{ name, file string }{
		{"transformer_forward_q8mix", "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"},
		{"transformer_forward_sdcpp_q8q4kf16", "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"},
		{"transformer_forward_bfl_single_file", "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors"},
	} {
		t.Run(c.name, func(t *testing.T) {
			comp, err := assemble.OpenTransformer(golden.Path(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseConfig(comp.Config)
			if err != nil {
				comp.Close()
				t.Fatal(err)
			}
			m, err := LoadFrom(c.file, cfg, comp.Checkpoint, backends.Default())
			if err != nil {
				comp.Close()
				t.Fatal(err)
			}
			defer m.Close()
			out := golden.Open(t, "gguf/cases/"+c.name+".safetensors")
			for _, k := range []string{"t2i_2x3_sigma1.0", "i2i_2x3_ref1_sigma0.75"} {
				img, _ := golden.F32(t, in, k+".hidden_states")
				txt, _ := golden.F32(t, in, k+".encoder_hidden_states")
				ts, _ := golden.F32(t, in, k+".timestep")
				ii, _ := golden.I64(t, in, k+".img_ids")
				ti, _ := golden.I64(t, in, k+".txt_ids")
				want, _ := golden.F32(t, out, k+".output")
				got, err := m.ForwardHost(context.Background(), HostInput{Img: img, ImgIDs: ii, Txt: txt, TxtIDs: ti, Timestep: ts[0]}, nil)
				if err != nil {
					t.Fatal(err)
				}
				golden.Compare(t, k, got, want, outputTol)
				if c.name != "transformer_forward_bfl_single_file" {
					folder, _ := golden.F32(t, in, k+".output")
					if rel, _ := golden.Errors(folder, want); rel < 100*outputTol {
						t.Errorf("control: the folder's output is within %.2g of the GGUF golden", rel)
					}
				}
			}
		})
	}
}

// quantCounter counts the packed weights a loader hands to the backend and the float32
// elements of the 2-D weights it makes.
type quantCounter struct {
	gpu.Backend
	refuse           bool // WeightQuant fails, as on a backend without quantized kernels
	quant, f32Matrix int
}

func (c *quantCounter) WeightQuant(dt gpu.DType, raw []byte, shape ...int) (gpu.Tensor, error) {
	if c.refuse {
		return gpu.Tensor{}, errors.New("no quantized weights here")
	}
	c.quant++
	return c.Backend.WeightQuant(dt, raw, shape...)
}

func (c *quantCounter) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	if len(shape) == 2 {
		c.f32Matrix += len(data)
	}
	return c.Backend.WeightF32(data, shape...)
}

// TestGGUFLoadKeepsQuantPacked loads the ComfyUI-GGUF Q8_0 mix on the CPU backend and checks
// that every quantized Linear weight reaches the backend packed (WeightQuant), none as a
// float32 copy, and that the forward still matches the golden output at outputTol; a
// backend that refuses them gets float32 copies and the same output.
func TestGGUFLoadKeepsQuantPacked(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuse=%v", refuse), func(t *testing.T) { testQuantPacked(t, refuse) })
	}
}

func testQuantPacked(t *testing.T, refuse bool) {
	const file = "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"
	comp, err := assemble.OpenTransformer(golden.Path(t, file))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(comp.Config)
	if err != nil {
		comp.Close()
		t.Fatal(err)
	}
	packed, elems := 0, 0
	for _, n := range comp.Checkpoint.Names() {
		tn, _ := comp.Checkpoint.Tensor(n)
		if q := tn.Quantized(); q != nil && len(tn.Shape) == 2 {
			packed++
			elems += tn.Numel()
		}
	}
	if packed == 0 {
		t.Fatal("the Q8_0 mix has no quantized matrix")
	}
	cb := &quantCounter{Backend: backends.DefaultCPU(), refuse: refuse}
	m, err := LoadFrom(file, cfg, comp.Checkpoint, cb)
	if err != nil {
		comp.Close()
		t.Fatal(err)
	}
	defer m.Close()
	mem := cb.Memory()
	t.Logf("%d packed matrices; backend resident %d bytes, viewed %d bytes; %d float32 matrix elements", packed, mem.Resident, mem.Viewed, cb.f32Matrix)
	// The mix's other matrices are BF16: float32 matrices are only the refused Q8_0 ones.
	wantQ, wantF := packed, 0
	if refuse {
		wantQ, wantF = 0, elems
	}
	if cb.quant != wantQ || cb.f32Matrix != wantF {
		t.Errorf("%d WeightQuant calls and %d float32 matrix elements, want %d and %d", cb.quant, cb.f32Matrix, wantQ, wantF)
	}
	in := golden.Open(t, "gguf/cases/transformer_forward_inputs.safetensors")
	out := golden.Open(t, "gguf/cases/transformer_forward_q8mix.safetensors")
	const k = "t2i_2x3_sigma1.0"
	img, _ := golden.F32(t, in, k+".hidden_states")
	txt, _ := golden.F32(t, in, k+".encoder_hidden_states")
	ts, _ := golden.F32(t, in, k+".timestep")
	ii, _ := golden.I64(t, in, k+".img_ids")
	ti, _ := golden.I64(t, in, k+".txt_ids")
	want, _ := golden.F32(t, out, k+".output")
	got, err := m.ForwardHost(context.Background(), HostInput{Img: img, ImgIDs: ii, Txt: txt, TxtIDs: ti, Timestep: ts[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, k, got, want, outputTol)
}
