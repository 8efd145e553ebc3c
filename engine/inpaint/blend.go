package inpaint

import "fmt"

// Channels is the width of a latent token (32 VAE channels patchified 2×2).
const Channels = 128

// ScaleNoise is the scheduler's scale_noise (S:188-236) on packed tokens:
// dst = σ·noise + (1 − σ)·x element-wise in float32, each product rounded before the sum as
// torch does. With σ = sigma[t_start] it gives the start latents (P:609); at σ = 1 they are
// the noise bit for bit. dst may alias x or noise.
func ScaleNoise(dst, x, noise []float32, sigma float32) error {
	if len(x) != len(dst) || len(noise) != len(dst) {
		return fmt.Errorf("scale noise: lengths %d, %d, %d differ", len(dst), len(x), len(noise))
	}
	om := 1 - sigma
	for i := range dst {
		a := float32(sigma * noise[i])
		b := float32(om * x[i])
		dst[i] = a + b
	}
	return nil
}

// Blend is the per-step mix after the scheduler step (P:1211-1220): with the token mask m
// (one weight per token, 1 = repaint), x = (1 − m)·orig + m·x per token, where orig is
// the image latents re-noised to the sigma just stepped to, ScaleNoise(image, noise,
// sigma[k+1]), or the clean image latents after the last step. x and orig are packed
// [len(mask), Channels]. The arithmetic rounds like torch's.
func Blend(x, orig, mask []float32) error {
	if len(x) != len(mask)*Channels || len(orig) != len(x) {
		return fmt.Errorf("blend: %d latent values, %d original values for %d tokens of %d channels", len(x), len(orig), len(mask), Channels)
	}
	for t, m := range mask {
		km := 1 - m
		xs := x[t*Channels : (t+1)*Channels]
		os := orig[t*Channels : (t+1)*Channels]
		for i := range xs {
			a := float32(km * os[i])
			b := float32(m * xs[i])
			xs[i] = a + b
		}
	}
	return nil
}

// BlendStep performs the blend of step i of a run that started at tStart on a schedule of
// sigmas (len n+1): the original is re-noised to sigmas[tStart+i+1] unless i is the last
// step, where the clean image latents are used. x is updated in place; scratch (len(x))
// receives the re-noised original.
func BlendStep(x, image, noise, mask, scratch []float32, sigmas []float32, tStart, i int) error {
	n := len(sigmas) - 1
	k := tStart + i
	if k < 0 || k >= n {
		return fmt.Errorf("blend step %d from %d is outside the schedule of %d steps", i, tStart, n)
	}
	orig := image
	if k < n-1 {
		if err := ScaleNoise(scratch, image, noise, sigmas[k+1]); err != nil {
			return err
		}
		orig = scratch
	}
	return Blend(x, orig, mask)
}

// Pack transposes a latent [Channels, h·w] (channels first, the noise's layout) into
// tokens [h·w, Channels].
func Pack(lat []float32) []float32 {
	n := len(lat) / Channels
	out := make([]float32, len(lat))
	for c := 0; c < Channels; c++ {
		for t := 0; t < n; t++ {
			out[t*Channels+c] = lat[c*n+t]
		}
	}
	return out
}

// Unpack inverts Pack.
func Unpack(tok []float32) []float32 {
	n := len(tok) / Channels
	out := make([]float32, len(tok))
	for t := 0; t < n; t++ {
		for c := 0; c < Channels; c++ {
			out[c*n+t] = tok[t*Channels+c]
		}
	}
	return out
}

// EulerStep is the flow-matching scheduler step on the host: x += float32(dSigma·v), with
// dSigma = sigma[k+1] − sigma[k] computed in float32 (S:484-511), as gpu.Backend.AddScaled
// does on a device.
func EulerStep(x, v []float32, dSigma float32) {
	for i := range x {
		x[i] += float32(dSigma * v[i])
	}
}
