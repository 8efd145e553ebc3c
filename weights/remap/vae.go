package remap

import (
	"fmt"
	"strings"
)

// bflResnet maps the parts of a BFL ResnetBlock to diffusers' ResnetBlock2D.
var bflResnet = map[string]string{"norm1": "norm1", "conv1": "conv1", "norm2": "norm2", "conv2": "conv2", "nin_shortcut": "conv_shortcut"}

// bflAttn maps the parts of BFL's mid-block AttnBlock to diffusers' Attention.
var bflAttn = map[string]string{"norm": "group_norm", "q": "to_q", "k": "to_k", "v": "to_v", "proj_out": "to_out.0"}

// DetectVAE tells a FLUX.2 autoencoder file's naming from its tensor names.
func DetectVAE(names []string) Naming {
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "encoder.down."), strings.HasPrefix(n, "decoder.up."),
			strings.HasPrefix(n, "encoder.mid."), strings.HasPrefix(n, "decoder.mid."):
			return BFL
		case strings.HasPrefix(n, "encoder.down_blocks."), strings.HasPrefix(n, "decoder.up_blocks."),
			strings.HasPrefix(n, "encoder.mid_block."):
			return Diffusers
		}
	}
	return Unknown
}

// VAE plans the diffusers AutoencoderKLFlux2 tensors from a file's tensor names. BFL
// autoencoder names (BFL's ae.safetensors) are renamed as diffusers' converter does: the
// decoder's up levels are numbered in reverse, nin_shortcut becomes conv_shortcut, and the
// mid-block attention's 1x1 convolution kernels become linear weights (Squeeze).
// The latent BatchNorm's buffers (bn.*) keep their names. Diffusers names (Comfy-Org's
// flux2-vae.safetensors) map to themselves.
func VAE(names []string) (Plan, Naming, error) {
	naming := DetectVAE(names)
	switch naming {
	case Diffusers:
		return identity(names), naming, nil
	case Unknown:
		return nil, naming, fmt.Errorf("vae: no FLUX.2 autoencoder tensor names found (neither BFL nor diffusers naming) among %d tensors", len(names))
	}
	levels := 0
	for _, n := range names {
		if i, _, ok := blockIndex(n, "decoder.up."); ok && i+1 > levels {
			levels = i + 1
		}
	}
	plan := make(Plan, len(names))
	var bad []string
	for _, n := range names {
		t, op, ok := bflVAEName(n, levels)
		if !ok {
			bad = append(bad, n)
			continue
		}
		if prev, dup := plan[t]; dup {
			return nil, naming, fmt.Errorf("vae: %s and %s both give %s", prev.Name, n, t)
		}
		plan[t] = Source{Name: n, Op: op}
	}
	if len(bad) > 0 {
		return nil, naming, unmapped("vae (BFL naming)", bad)
	}
	return plan, naming, nil
}

// bflVAEName renames one BFL autoencoder tensor; levels is the number of decoder up levels.
func bflVAEName(name string, levels int) (string, Op, bool) {
	module, param, ok := splitParam(name)
	if !ok {
		if name == "bn.running_mean" || name == "bn.running_var" || name == "bn.num_batches_tracked" {
			return name, Copy, true
		}
		return "", Copy, false
	}
	suffix := "." + param
	switch module {
	case "encoder.quant_conv":
		return "quant_conv" + suffix, Copy, true
	case "decoder.post_quant_conv":
		return "post_quant_conv" + suffix, Copy, true
	}
	side, rest, ok := strings.Cut(module, ".")
	if !ok || (side != "encoder" && side != "decoder") {
		return "", Copy, false
	}
	switch rest {
	case "conv_in", "conv_out":
		return module + suffix, Copy, true
	case "norm_out":
		return side + ".conv_norm_out" + suffix, Copy, true
	}
	if mid, ok := strings.CutPrefix(rest, "mid."); ok {
		return bflVAEMid(side, mid, param)
	}
	var level int
	var inner, blocks, sampler, samplers string
	if side == "encoder" {
		if level, inner, ok = blockIndex(rest, "down."); !ok {
			return "", Copy, false
		}
		blocks, sampler, samplers = "encoder.down_blocks", "downsample.conv", "downsamplers.0.conv"
	} else {
		if level, inner, ok = blockIndex(rest, "up."); !ok || level >= levels {
			return "", Copy, false
		}
		level = levels - 1 - level // BFL counts up levels from the lowest resolution
		blocks, sampler, samplers = "decoder.up_blocks", "upsample.conv", "upsamplers.0.conv"
	}
	if inner == sampler {
		return fmt.Sprintf("%s.%d.%s%s", blocks, level, samplers, suffix), Copy, true
	}
	j, part, ok := blockIndex(inner, "block.")
	if r, found := bflResnet[part]; ok && found {
		return fmt.Sprintf("%s.%d.resnets.%d.%s%s", blocks, level, j, r, suffix), Copy, true
	}
	return "", Copy, false
}

// bflVAEMid renames a tensor of an encoder or decoder mid block (mid is the path after "mid.").
func bflVAEMid(side, mid, param string) (string, Op, bool) {
	prefix := side + ".mid_block."
	block, part, _ := strings.Cut(mid, ".")
	switch block {
	case "block_1", "block_2":
		r, ok := bflResnet[part]
		if !ok {
			return "", Copy, false
		}
		idx := map[string]int{"block_1": 0, "block_2": 1}[block]
		return fmt.Sprintf("%sresnets.%d.%s.%s", prefix, idx, r, param), Copy, true
	case "attn_1":
		r, ok := bflAttn[part]
		if !ok {
			return "", Copy, false
		}
		op := Copy
		if param == "weight" && part != "norm" {
			op = Squeeze
		}
		return prefix + "attentions.0." + r + "." + param, op, true
	}
	return "", Copy, false
}
