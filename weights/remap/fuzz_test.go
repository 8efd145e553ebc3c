package remap_test

import (
	"strings"
	"testing"

	"kleinbild/weights/remap"
)

// FuzzPlans feeds arbitrary tensor name lists (newline-separated) and shapes to the planners
// and config inference: no panic or hang, and every plan entry names an input tensor.
func FuzzPlans(f *testing.F) {
	f.Add("double_blocks.0.img_attn.qkv.weight\nfinal_layer.adaLN_modulation.1.weight\nsingle_blocks.3.linear1.weight", 64)
	f.Add("model.diffusion_model.img_in.weight\nmodel.diffusion_model.double_blocks.1.txt_attn.norm.key_norm.scale", 32)
	f.Add("encoder.down.0.block.1.nin_shortcut.weight\ndecoder.up.3.upsample.conv.bias\ndecoder.mid.attn_1.q.weight\nbn.running_mean", 8)
	f.Add("token_embd.weight\nblk.27.attn_q_norm.weight\nblk.28.ffn_down.weight\noutput_norm.weight", 27)
	f.Add("transformer_blocks.0.attn.to_q.weight\nx_embedder.weight", 3)
	f.Fuzz(func(t *testing.T, list string, dim int) {
		names := strings.Split(list, "\n")
		if len(names) > 1000 {
			return
		}
		shapes := map[string][]int{}
		for i, n := range names {
			shapes[n] = []int{dim + i%3, dim, 1, 1}[:1+i%4]
		}
		type planner func([]string) (remap.Plan, remap.Naming, error)
		te := func(n []string) (remap.Plan, remap.Naming, error) { return remap.TextEncoder(n, dim) }
		for _, p := range []planner{remap.Transformer, remap.VAE, te} {
			plan, _, err := p(names)
			if err != nil {
				continue
			}
			for target, s := range plan {
				if _, ok := shapes[s.Name]; !ok {
					t.Fatalf("%s from %q, not an input name", target, s.Name)
				}
			}
			if ts, err := plan.Shapes(shapes); err == nil {
				remap.Flux2Config(ts)
				remap.Qwen3Config(ts, remap.Qwen3Params{})
				remap.VAEConfig(ts, 0)
			}
		}
	})
}
