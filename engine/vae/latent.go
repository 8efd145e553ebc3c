package vae

import "kleinbild/gpu"

// Normalize applies the pipeline's BatchNorm normalisation to a patchified latent x
// [4·LatentChannels, h, w] on v's backend: y = (x − bn.running_mean) /
// sqrt(bn.running_var + batch_norm_eps), in float32. y may alias x. Like every backend op
// it reports bad arguments (and use after Close) at the backend's next Read, Flush or Sync.
func (v *VAE) Normalize(y, x gpu.Tensor, h, w int) {
	v.b.BatchNorm(y, x, v.bnMean, v.bnStd, v.cfg.PatchedChannels(), h*w, false)
}

// Denormalize inverts Normalize: y = x·sqrt(bn.running_var + batch_norm_eps) +
// bn.running_mean, in float32 (the multiply rounded before the add, as torch does). y may
// alias x.
func (v *VAE) Denormalize(y, x gpu.Tensor, h, w int) {
	v.b.BatchNorm(y, x, v.bnMean, v.bnStd, v.cfg.PatchedChannels(), h*w, true)
}
