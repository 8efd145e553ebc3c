package vae

import "fmt"

// checkLen panics with a descriptive message when a caller passes a slice that does not
// match the dimensions it states (a programming error, not bad data).
func checkLen(fn string, n, c, h, w int) {
	if c <= 0 || h <= 0 || w <= 0 || n != c*h*w {
		panic(fmt.Sprintf("vae.%s: %d values for shape [%d, %d, %d]", fn, n, c, h, w))
	}
}

// Patchify folds 2×2 pixel patches of lat [c, h, w] into channels, giving [4c, h/2, w/2]
// with channel c·4 + dy·2 + dx (the pipeline's _patchify_latents). h and w must be even;
// it panics when they are not or len(lat) != c·h·w.
func Patchify(lat []float32, c, h, w int) []float32 {
	checkLen("Patchify", len(lat), c, h, w)
	if h%2 != 0 || w%2 != 0 {
		panic(fmt.Sprintf("vae.Patchify: odd latent size %d×%d", h, w))
	}
	h2, w2 := h/2, w/2
	out := make([]float32, len(lat))
	for ci := range c {
		for dy := range 2 {
			for dx := range 2 {
				dst := out[(ci*4+dy*2+dx)*h2*w2:]
				for y := range h2 {
					src := lat[ci*h*w+(2*y+dy)*w+dx:]
					row := dst[y*w2 : (y+1)*w2]
					for x := range row {
						row[x] = src[2*x]
					}
				}
			}
		}
	}
	return out
}

// Unpatchify inverts Patchify: x [c, h, w] (c a multiple of 4) becomes [c/4, 2h, 2w]
// (the pipeline's _unpatchify_latents). It panics when len(x) != c·h·w or c%4 != 0.
func Unpatchify(x []float32, c, h, w int) []float32 {
	checkLen("Unpatchify", len(x), c, h, w)
	if c%4 != 0 {
		panic(fmt.Sprintf("vae.Unpatchify: %d channels is not a multiple of 4", c))
	}
	W := 2 * w
	out := make([]float32, len(x))
	for ci := range c / 4 {
		for dy := range 2 {
			for dx := range 2 {
				src := x[(ci*4+dy*2+dx)*h*w:]
				for y := range h {
					dst := out[ci*4*h*w+(2*y+dy)*W+dx:]
					row := src[y*w : (y+1)*w]
					for xx, v := range row {
						dst[2*xx] = v
					}
				}
			}
		}
	}
	return out
}

// Pack turns x [c, h, w] into tokens [h·w, c], token index row·w + col (the pipeline's
// _pack_latents). It panics when len(x) != c·h·w.
func Pack(x []float32, c, h, w int) []float32 {
	checkLen("Pack", len(x), c, h, w)
	out := make([]float32, len(x))
	hw := h * w
	for ci := range c {
		src := x[ci*hw : (ci+1)*hw]
		for p, v := range src {
			out[p*c+ci] = v
		}
	}
	return out
}

// Unpack inverts Pack: tokens [h·w, c] in row-major pixel order become [c, h, w] (what
// _unpack_latents_with_ids does for the ids the pipeline builds). It panics when
// len(x) != c·h·w.
func Unpack(x []float32, c, h, w int) []float32 {
	checkLen("Unpack", len(x), c, h, w)
	out := make([]float32, len(x))
	hw := h * w
	for ci := range c {
		dst := out[ci*hw : (ci+1)*hw]
		for p := range dst {
			dst[p] = x[p*c+ci]
		}
	}
	return out
}

// Normalize applies the pipeline's BatchNorm normalisation in place to a patchified latent
// x [4·LatentChannels, h, w]: (x - bn.running_mean) / sqrt(bn.running_var + batch_norm_eps),
// in float32. It panics when len(x) does not match.
func (v *VAE) Normalize(x []float32, h, w int) {
	checkLen("Normalize", len(x), len(v.bnMean), h, w)
	hw := h * w
	for c, m := range v.bnMean {
		s := v.bnStd[c]
		row := x[c*hw : (c+1)*hw]
		for i, e := range row {
			row[i] = (e - m) / s
		}
	}
}

// Denormalize inverts Normalize in place: x·sqrt(bn.running_var + batch_norm_eps) +
// bn.running_mean, in float32 (the multiply rounded before the add, as torch does). It
// panics when len(x) does not match.
func (v *VAE) Denormalize(x []float32, h, w int) {
	checkLen("Denormalize", len(x), len(v.bnMean), h, w)
	hw := h * w
	for c, m := range v.bnMean {
		s := v.bnStd[c]
		row := x[c*hw : (c+1)*hw]
		for i, e := range row {
			row[i] = float32(e*s) + m
		}
	}
}
