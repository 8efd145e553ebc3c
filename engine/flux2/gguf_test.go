package flux2

import (
	"context"
	"testing"

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
