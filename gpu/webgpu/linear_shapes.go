package webgpu

import (
	"fmt"
	"math/bits"
)

// LinearShape is one Linear product: M rows, N outputs, depth K.
type LinearShape struct {
	Name    string // where the model runs it, "single to_qkv_mlp_proj at 1024²"
	M, N, K int
}

// FLOPs is the product's 2·M·N·K.
func (s LinearShape) FLOPs() float64 { return 2 * float64(s.M) * float64(s.N) * float64(s.K) }

// ModelDims are the widths that set the Linear shapes of the transformer and its text
// encoder (their config.json; SPEC.md lists them).
type ModelDims struct {
	Hidden, MLP, InChannels, JointDim int // transformer: hidden, MLP inner width, latent channels, context width
	TextTokens                        int // prompt tokens (the encoder's rows, the text stream's)
	EncHidden, EncHeads, EncKVHeads   int // encoder: hidden, query and key/value heads
	EncHeadDim, EncIntermediate       int
}

// Klein4BDims are FLUX.2-klein 4B's (hidden 3072, mlp_ratio 3, 128 latent channels, joint
// attention dim 7680) with Qwen3-4B (hidden 2560, 32 q and 8 kv heads of 128, intermediate
// 9728) and 512 prompt tokens.
func Klein4BDims() ModelDims {
	return ModelDims{Hidden: 3072, MLP: 9216, InChannels: 128, JointDim: 7680, TextTokens: 512,
		EncHidden: 2560, EncHeads: 32, EncKVHeads: 8, EncHeadDim: 128, EncIntermediate: 9728}
}

// DefaultShapeSizes are the square image sides whose Linear shapes tuning times one by one.
func DefaultShapeSizes() []int { return []int{256, 1024, 1792} }

// Shapes lists the Linear products of d with more than smallM's rows, once per shape key
// (shapeBucket of M, N, K; the first listed stands for its key): the encoder's on a prompt,
// the text stream's, then per square image side of sizes (image tokens (side/16)²) the
// image stream's of the double blocks (q, k, v and out projections, the MLP's SwiGLU input
// and its down-projection), the single blocks' fused projections over image and text
// tokens, and the latent embedding and output projection.
func (d ModelDims) Shapes(sizes []int) []LinearShape {
	var out []LinearShape
	seen := map[[3]int]bool{}
	add := func(name string, m, n, k int) {
		key := [3]int{shapeBucket(m), n, k}
		if m <= smallRows || n < 1 || k < 1 || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, LinearShape{Name: name, M: m, N: n, K: k})
	}
	h, l := d.Hidden, d.TextTokens
	q, kv := d.EncHeads*d.EncHeadDim, d.EncKVHeads*d.EncHeadDim
	add("encoder q_proj", l, q, d.EncHidden)
	add("encoder k_proj, v_proj", l, kv, d.EncHidden)
	add("encoder o_proj", l, d.EncHidden, q)
	add("encoder gate_proj, up_proj", l, d.EncIntermediate, d.EncHidden)
	add("encoder down_proj", l, d.EncHidden, d.EncIntermediate)
	add("context_embedder", l, h, d.JointDim)
	add("double text q, k, v, out", l, h, h)
	add("double text ff_context.linear_in", l, 2*d.MLP, h)
	add("double text ff_context.linear_out", l, h, d.MLP)
	for _, side := range sizes {
		n := (side / 16) * (side / 16)
		at := fmt.Sprintf(" at %d²", side)
		add("double image q, k, v, out"+at, n, h, h)
		add("double image ff.linear_in"+at, n, 2*d.MLP, h)
		add("double image ff.linear_out"+at, n, h, d.MLP)
		add("single to_qkv_mlp_proj"+at, n+l, 3*h+2*d.MLP, h)
		add("single to_out"+at, n+l, h, h+d.MLP)
		add("x_embedder"+at, n, h, d.InChannels)
		add("proj_out"+at, n, d.InChannels, h)
	}
	return out
}

// smallRows is the most rows of a product that runs the small-M tile whatever the variant
// (gemm.go's smallM): no shape record is kept for it.
const smallRows = 8

// shapeBucket is the M-bucket of an m-row product: the least power of two at or above m
// (1 for m ≤ 1). A shape record holds for every row count of its bucket: 768 rows (256²'s
// single blocks) share 1024's, 4096 (1024²'s image tokens) has its own, 4608 shares 8192's.
func shapeBucket(m int) int {
	if m <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(m-1))
}

// shapeKey is a shape record's key: the rows' bucket, the outputs and the depth.
type shapeKey struct{ m, n, k int }

// keyOf is the key of an m-row product of n outputs of depth k.
func keyOf(m, n, k int) shapeKey { return shapeKey{shapeBucket(m), n, k} }
