package randmodel

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
)

// rule is how one tensor's values are drawn.
type rule struct {
	kind ruleKind
	mean float64 // ruleUniform: centre
	std  float64 // ruleUniform: standard deviation; ruleLogUniform: of the exponent
	i64  int64   // ruleConstI64: the value
}

type ruleKind int

const (
	ruleUniform    ruleKind = iota // mean + uniform noise with standard deviation std
	ruleLogUniform                 // exp(uniform noise with standard deviation std)
	ruleConstI64                   // every element is i64 (int64 tensors)
)

// ruleFor applies the golden tiny models' recipe (golden/README.md, "Weights") to a tensor,
// from its name and shape alone: Linear and Conv2d weights get standard deviation
// gain/sqrt(fan_in) (gain 2 on the timestep embedder's second linear, 1.7 on the modulation
// linears double_stream_modulation_img/_txt, single_stream_modulation and norm_out.linear,
// 0.5 on the VAE decoder's conv_out, else 1), biases 0.02, norm scales 1 ± 0.1, norm biases
// 0.05, the token embedding 1, VAE BatchNorm running means 0.5 and running variances
// exp(0.5 noise); bn.num_batches_tracked is 1000. (Standard deviations throughout.)
//
// The recipe's normal distributions are replaced by uniform ones of the same mean and
// variance, which are much cheaper to draw and keep activations O(1) just as well.
func ruleFor(name string, shape []int) rule {
	switch name {
	case "bn.running_mean":
		return rule{kind: ruleUniform, std: 0.5}
	case "bn.running_var":
		return rule{kind: ruleLogUniform, std: 0.5}
	case "bn.num_batches_tracked":
		return rule{kind: ruleConstI64, i64: 1000}
	}
	switch {
	case strings.HasSuffix(name, "embed_tokens.weight"):
		return rule{kind: ruleUniform, std: 1}
	case len(shape) == 1 && strings.HasSuffix(name, ".weight"): // RMSNorm, GroupNorm scales
		return rule{kind: ruleUniform, mean: 1, std: 0.1}
	case len(shape) == 1 && strings.HasSuffix(name, ".bias"):
		module := strings.TrimSuffix(name, ".bias")
		if strings.Contains(module[strings.LastIndexByte(module, '.')+1:], "norm") {
			return rule{kind: ruleUniform, std: 0.05}
		}
		return rule{kind: ruleUniform, std: 0.02}
	}
	fanIn := 1
	for _, d := range shape[1:] {
		fanIn *= d
	}
	gain := 1.0
	switch {
	case name == "time_guidance_embed.timestep_embedder.linear_2.weight":
		gain = 2
	case strings.Contains(name, "_modulation") && strings.HasSuffix(name, ".linear.weight"), name == "norm_out.linear.weight":
		gain = 1.7
	case name == "decoder.conv_out.weight":
		gain = 0.5
	}
	return rule{kind: ruleUniform, std: gain / math.Sqrt(float64(max(fanIn, 1)))}
}

// tensorSeed derives a tensor's generator key from the model seed and the tensor's path
// ("transformer/x_embedder.weight"), so that every tensor has its own stream.
func tensorSeed(seed uint64, path string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(path))
	return mix64(h.Sum64())
}

// golden64 is the SplitMix64 increment (2^64 / φ).
const golden64 = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 output function, a bijective 64-bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// The generator is counter-based: element i of a tensor takes the 16-bit lane i%4 of
// mix64(key + (i/4+1)·golden64), i.e. SplitMix64 indexed directly. A lane u maps to
// (u - 32767.5)/32768, uniform over 65536 points in (-1, 1) with mean 0 and variance 1/3
// (to 2e-10), so the value depends only on (seed, tensor, index), never on how the work is
// split. 16 bits are more than the 8 significant bits a bf16 keeps. The explicit float32
// conversions forbid fused multiply-adds, so the bytes are the same on every platform.
const (
	laneScale  = 1.0 / 32768
	laneOffset = 32767.5
	sqrt3      = 1.7320508075688772
)

// fillBF16 writes elements [lo, hi) of a tensor drawn by r as little-endian bfloat16 into
// dst (2·(hi-lo) bytes).
func fillBF16(dst []byte, key uint64, r rule, lo, hi int64) {
	a := float32(r.std * sqrt3 * laneScale)
	b := float32(r.mean) - a*laneOffset
	value := func(u uint64) uint16 { // u: a 16-bit lane
		return roundBF16(float32(float32(u)*a) + b)
	}
	if r.kind == ruleLogUniform {
		value = func(u uint64) uint16 {
			return roundBF16(float32(math.Exp(r.std * sqrt3 * (float64(u) - laneOffset) * laneScale)))
		}
	}
	i := lo
	// Head: up to the next multiple of 4.
	for ; i < hi && i%4 != 0; i++ {
		x := mix64(key + uint64(i/4+1)*golden64)
		binary.LittleEndian.PutUint16(dst[2*(i-lo):], value(x>>(16*(i%4))&0xffff))
	}
	// Whole blocks of 4 lanes.
	if r.kind == ruleUniform {
		for ; i+4 <= hi; i += 4 {
			x := mix64(key + uint64(i/4+1)*golden64)
			d := dst[2*(i-lo) : 2*(i-lo)+8]
			binary.LittleEndian.PutUint16(d[0:], roundBF16(float32(float32(x&0xffff)*a)+b))
			binary.LittleEndian.PutUint16(d[2:], roundBF16(float32(float32(x>>16&0xffff)*a)+b))
			binary.LittleEndian.PutUint16(d[4:], roundBF16(float32(float32(x>>32&0xffff)*a)+b))
			binary.LittleEndian.PutUint16(d[6:], roundBF16(float32(float32(x>>48)*a)+b))
		}
	}
	// Tail (and everything for the rare non-uniform rules).
	for ; i < hi; i++ {
		x := mix64(key + uint64(i/4+1)*golden64)
		binary.LittleEndian.PutUint16(dst[2*(i-lo):], value(x>>(16*(i%4))&0xffff))
	}
}

// fillI64 writes elements [lo, hi) of a constant int64 tensor into dst.
func fillI64(dst []byte, r rule, lo, hi int64) {
	for i := range hi - lo {
		binary.LittleEndian.PutUint64(dst[8*i:], uint64(r.i64))
	}
}

// roundBF16 rounds a finite float32 to the nearest bfloat16, ties to even (as torch does).
func roundBF16(f float32) uint16 {
	u := math.Float32bits(f)
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}
