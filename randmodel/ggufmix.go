package randmodel

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"kleinbild/weights/gguf"
)

// Mix is a GGUF quantization mix WriteGGUFMix writes, named as llama.cpp names file types.
type Mix string

// The mixes.
const (
	MixQ8_0   Mix = "Q8_0"   // every quantized tensor Q8_0, as gguf-py and ComfyUI-GGUF's Q8_0 files
	MixQ4_K_M Mix = "Q4_K_M" // Q4_K, with Q6_K where llama.cpp's Q4_K_M raises a tensor
)

// Mixes lists the mixes.
func Mixes() []Mix { return []Mix{MixQ8_0, MixQ4_K_M} }

// ParseMix accepts a mix name, case-insensitively.
func ParseMix(s string) (Mix, error) {
	for _, m := range Mixes() {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown GGUF mix %q (want Q8_0 or Q4_K_M)", s)
}

// mixRule picks the quantized type of each tensor of one component.
type mixRule struct {
	mix  Mix
	keep []string // name parts of tensors never quantized
	// blocks is the number of layers (text encoder) or double + single blocks (transformer,
	// double of them first), for llama.cpp's use_more_bits.
	blocks, double int
}

// blockIndex finds the layer / block number in a transformers or diffusers name.
var blockIndex = regexp.MustCompile(`(?:^|\.)(layers|transformer_blocks|single_transformer_blocks)\.(\d+)\.`)

// typeOf is the type tensor name of the given shape gets, 0 for "keep its type":
//
//   - only 2-D tensors are quantized, and none whose name contains a keep part;
//   - Q8_0: every tensor whose rows are whole 32-element blocks;
//   - Q4_K_M (llama.cpp llama_tensor_get_type for LLAMA_FTYPE_MOSTLY_Q4_K_M): Q6_K for the
//     token embedding (tied to the output, which _M makes Q6_K) and lm_head, and for the value
//     and FFN-down projections of the blocks i where use_more_bits(i, n) holds (the first and
//     last eighth and every third between); Q4_K for the rest. In the transformer the value
//     projections are attn.to_v and attn.add_v_proj, the FFN-down ones ff.linear_out,
//     ff_context.linear_out and the single blocks' attn.to_out (attention output and MLP down
//     in one), with i counting double then single blocks. Rows that are not whole 256-element
//     super-blocks fall back to Q8_0 (llama.cpp would take Q5_0 for Q4_K, Q8_0 for Q6_K).
func (r mixRule) typeOf(name string, shape []int) gguf.Type {
	if len(shape) != 2 || shape[1]%32 != 0 {
		return 0
	}
	for _, k := range r.keep {
		if strings.Contains(name, k) {
			return 0
		}
	}
	if r.mix != MixQ4_K_M {
		return gguf.Q8_0
	}
	if shape[1]%256 != 0 {
		return gguf.Q8_0
	}
	if name == "model.embed_tokens.weight" || name == "lm_head.weight" {
		return gguf.Q6_K
	}
	raised := false
	for _, p := range []string{".v_proj.", ".down_proj.", "attn.to_v.", "attn.add_v_proj.", "ff.linear_out.", "ff_context.linear_out."} {
		raised = raised || strings.Contains(name, p)
	}
	m := blockIndex.FindStringSubmatch(name)
	if m != nil && m[1] == "single_transformer_blocks" && strings.Contains(name, "attn.to_out.") {
		raised = true
	}
	if !raised || m == nil {
		return gguf.Q4_K
	}
	i, _ := strconv.Atoi(m[2])
	if m[1] == "single_transformer_blocks" {
		i += r.double
	}
	if useMoreBits(i, r.blocks) {
		return gguf.Q6_K
	}
	return gguf.Q4_K
}

// useMoreBits is llama.cpp's use_more_bits(i_layer, n_layers).
func useMoreBits(i, n int) bool { return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2 }

// quantize packs v as type t, in parallel over runs of whole blocks. K-quants use the
// quantizers' fast (no-search) variants: the same layout and size as llama-quantize's
// blocks, and the values are random anyway.
func quantize(ctx context.Context, t gguf.Type, v []float32) ([]byte, error) {
	var f func([]float32) ([]byte, error)
	switch t {
	case gguf.Q8_0:
		f = gguf.QuantizeQ8_0
	case gguf.Q4_K:
		f = gguf.QuantizeQ4_KFast
	case gguf.Q6_K:
		f = gguf.QuantizeQ6_KFast
	default:
		return nil, fmt.Errorf("no quantizer for %s", t)
	}
	elems, size := t.Block()
	blocks := len(v) / elems
	if blocks*elems != len(v) {
		return nil, fmt.Errorf("%d values is not a whole number of %s blocks", len(v), t)
	}
	out := make([]byte, blocks*size)
	const chunk = 4096 // blocks per task
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan int)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range next {
				e := min(b+chunk, blocks)
				q, err := f(v[b*elems : e*elems])
				if err == nil {
					copy(out[b*size:e*size], q)
					continue
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	for b := 0; b < blocks && ctx.Err() == nil; b += chunk {
		next <- b
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}
