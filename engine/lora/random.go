package lora

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"kleinbild/weights"
)

// RandomOptions describe a random adapter (benchmarks, tests).
type RandomOptions struct {
	Rank   int
	Alpha  float32 // 0: the rank
	Format Format  // FormatDiffusers, FormatBFL or FormatKohya for LoRA; FormatLyCORIS for LoKr
	Seed   uint64
}

// WriteRandom writes a random adapter of every layer in layers (a transformer's, e.g.
// LayersOf(flux2.TensorSpecs(cfg))) in the file layout of opts.Format, as bf16. LoRA factors
// are drawn so that ΔW stays small next to the weights; LoKr uses w1 [4, 4] (or [1, 1] where
// a size is not divisible by 4) and a rank-decomposed w2.
func WriteRandom(path string, layers Layers, opts RandomOptions) error {
	if opts.Rank <= 0 || opts.Rank > maxRank {
		return fmt.Errorf("lora: rank %d outside 1..%d", opts.Rank, maxRank)
	}
	alpha := opts.Alpha
	if alpha == 0 {
		alpha = float32(opts.Rank)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6c6f7261))
	mods := slices.Sorted(maps.Keys(layers))
	w := &randomWriter{rng: rng, rank: opts.Rank}
	meta := map[string]string{"format": "pt"}
	switch opts.Format {
	case FormatDiffusers:
		for _, m := range mods {
			w.lora("transformer."+m, ".lora_A.weight", ".lora_B.weight", layers[m], 1)
		}
		md, _ := json.Marshal(map[string]any{"transformer.r": opts.Rank, "transformer.lora_alpha": alpha, "transformer.peft_type": "LORA"})
		meta["lora_adapter_metadata"] = string(md)
	case FormatBFL, FormatKohya:
		if err := w.bfl(mods, layers, opts.Format, alpha); err != nil {
			return err
		}
	case FormatLyCORIS:
		for _, m := range mods {
			w.lokr("lycoris_"+strings.ReplaceAll(m, ".", "_"), layers[m], alpha)
		}
	default:
		return fmt.Errorf("lora: no random adapters in format %v", opts.Format)
	}
	if err := weights.WriteFile(path, w.out, meta); err != nil {
		return fmt.Errorf("lora: %w", err)
	}
	return nil
}

type randomWriter struct {
	rng  *rand.Rand
	rank int
	out  []weights.OutTensor
}

// matrix adds a [rows, cols] bf16 tensor of N(0, std²) values.
func (w *randomWriter) matrix(name string, rows, cols int, std float64) {
	f := make([]float32, rows*cols)
	for i := range f {
		f[i] = float32(w.rng.NormFloat64() * std)
	}
	b := make([]uint16, len(f))
	weights.F32ToBF16(b, f)
	w.out = append(w.out, weights.OutTensor{Name: name, Shape: []int{rows, cols}, BF16: b})
}

// lora adds A [rank, in] and B [parts·out, rank] (parts > 1: a fused qkv).
func (w *randomWriter) lora(stem, sa, sb string, shape [2]int, parts int) {
	w.matrix(stem+sa, w.rank, shape[1], 1/math.Sqrt(float64(shape[1])))
	w.matrix(stem+sb, parts*shape[0], w.rank, 0.01/math.Sqrt(float64(w.rank)))
}

func (w *randomWriter) alpha(name string, a float32) {
	w.out = append(w.out, weights.OutTensor{Name: name, Shape: []int{}, F32: []float32{a}})
}

func (w *randomWriter) lokr(stem string, shape [2]int, alpha float32) {
	f1, f2 := 4, 4
	if shape[0]%4 != 0 || shape[1]%4 != 0 {
		f1, f2 = 1, 1
	}
	w.matrix(stem+".lokr_w1", f1, f2, 1)
	w.matrix(stem+".lokr_w2_a", shape[0]/f1, w.rank, 1/math.Sqrt(float64(shape[1]/f2)))
	w.matrix(stem+".lokr_w2_b", w.rank, shape[1]/f2, 0.01/math.Sqrt(float64(w.rank)))
	w.alpha(stem+".alpha", alpha)
}

// bfl writes BFL (diffusion_model.<name>.lora_A/B) or kohya (lora_unet_<name with _>.lora_down/up
// + alpha) keys, fusing q, k, v into one qkv module as those formats do.
func (w *randomWriter) bfl(mods []string, layers Layers, f Format, alpha float32) error {
	done := map[string]bool{}
	for _, m := range mods {
		name, tg, ok := bflName(m)
		if !ok {
			return fmt.Errorf("lora: layer %q has no BFL name", m)
		}
		if done[name] {
			continue
		}
		done[name] = true
		for _, t := range tg.modules {
			if layers[t] != layers[m] {
				return fmt.Errorf("lora: fused layer %s needs %v with the same shape", name, tg.modules)
			}
		}
		if f == FormatBFL {
			w.lora("diffusion_model."+name, ".lora_A.weight", ".lora_B.weight", layers[m], len(tg.modules))
			continue
		}
		stem := "lora_unet_" + strings.ReplaceAll(name, ".", "_")
		w.lora(stem, ".lora_down.weight", ".lora_up.weight", layers[m], len(tg.modules))
		w.alpha(stem+".alpha", alpha)
	}
	return nil
}

// bflName is the BFL module (and its diffusers targets) that holds diffusers module m.
func bflName(m string) (string, target, bool) {
	for n, tg := range bflTop {
		if tg.modules[0] == m {
			return n, tg, true
		}
	}
	for prefix, per := range map[string]map[string]target{"transformer_blocks.": bflDouble, "single_transformer_blocks.": bflSingle} {
		rest, ok := strings.CutPrefix(m, prefix)
		if !ok {
			continue
		}
		num, sub, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		for n, tg := range per {
			if slices.Contains(tg.modules, sub) {
				bp := map[string]string{"transformer_blocks.": "double_blocks.", "single_transformer_blocks.": "single_blocks."}[prefix]
				full := target{split: tg.split}
				for _, x := range tg.modules {
					full.modules = append(full.modules, prefix+num+"."+x)
				}
				return bp + num + "." + n, full, true
			}
		}
	}
	return "", target{}, false
}
