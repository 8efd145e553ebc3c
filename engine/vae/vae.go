// Package vae is the FLUX.2 autoencoder (diffusers' AutoencoderKLFlux2): the convolutional
// encoder (image -> latent mode) and decoder (latent -> image), the 2×2 latent
// patchify/pack layouts and the BatchNorm (de)normalisation the FLUX.2 pipeline applies to
// patchified latents, and the conversion of decoded images to 8-bit RGB.
//
// Layouts are channels-first and unbatched: an image is [3, H, W] in [-1, 1], a latent
// [LatentChannels, H/8, W/8], a patchified latent [4·LatentChannels, H/16, W/16] and a
// packed one [(H/16)·(W/16), 4·LatentChannels].
//
// Weights stay as the checkpoint stores them: BF16 convolution kernels and linear weights
// are zero-copy views of the memory-mapped file (168 MB for the real VAE), converted to
// float32 by the device per call; activations and all arithmetic are float32, as diffusers
// runs the VAE (force_upcast). Norm parameters, biases and the BatchNorm statistics are
// converted to float32 at load.
package vae

import (
	"context"
	"errors"
	"fmt"

	"kleinbild/gpu"
	"kleinbild/weights"
)

// VAE is a loaded autoencoder. It runs one Encode or Decode at a time.
type VAE struct {
	cfg    Config
	dev    *gpu.Device
	ck     *weights.Checkpoint
	enc    encoder
	dec    decoder
	bnMean []float32 // bn.running_mean
	bnStd  []float32 // sqrt(bn.running_var + batch_norm_eps)
}

// Load opens the vae/ folder of a model (config.json and the safetensors weights) and
// checks that every tensor the network needs is present with the right shape.
func Load(dir string, dev *gpu.Device) (*VAE, error) {
	if dev == nil {
		return nil, errors.New("load VAE: nil device")
	}
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	ck, err := weights.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("load VAE weights: %w", err)
	}
	l := &loader{ck: ck}
	v := &VAE{cfg: cfg, dev: dev, ck: ck}
	v.enc, v.dec, v.bnMean, v.bnStd = l.bind(cfg)
	if err := l.err(); err != nil {
		ck.Close()
		return nil, fmt.Errorf("load VAE from %s: %w", dir, err)
	}
	return v, nil
}

// Config returns the model's configuration.
func (v *VAE) Config() Config { return v.cfg }

// Close unmaps the weights. The VAE must not be used afterwards.
func (v *VAE) Close() error {
	if v.ck == nil {
		return nil
	}
	err := v.ck.Close()
	v.ck = nil
	return err
}

// Decode turns a latent [LatentChannels, h, w] (already denormalised and unpatchified) into
// an image [OutChannels, 8h, 8w], unclamped (roughly in [-1, 1]). progress, if non-nil, is
// called after each block; ctx is checked between blocks.
func (v *VAE) Decode(ctx context.Context, latent []float32, h, w int, progress func(done, total int)) ([]float32, error) {
	if v.ck == nil {
		return nil, errors.New("vae decode: VAE is closed")
	}
	c := v.cfg.LatentChannels
	if h <= 0 || w <= 0 || h > maxSide || w > maxSide {
		return nil, fmt.Errorf("vae decode: latent size %d×%d out of range 1..%d", h, w, maxSide)
	}
	if len(latent) != c*h*w {
		return nil, fmt.Errorf("vae decode: latent has %d values, want %d×%d×%d = %d", len(latent), c, h, w, c*h*w)
	}
	return v.decode(ctx, latent, h, w, progress)
}

// Encode returns the latent mode [LatentChannels, H/8, W/8] (the first LatentChannels
// channels of quant_conv(encoder(img)), no sampling) of an image [InChannels, H, W] in
// [-1, 1]. H and W must be positive multiples of 8 (the scale factor). progress, if
// non-nil, is called after each block; ctx is checked between blocks.
func (v *VAE) Encode(ctx context.Context, img []float32, H, W int, progress func(done, total int)) ([]float32, error) {
	if v.ck == nil {
		return nil, errors.New("vae encode: VAE is closed")
	}
	s := v.cfg.ScaleFactor()
	if H <= 0 || W <= 0 || H%s != 0 || W%s != 0 || H > maxSide*s || W > maxSide*s {
		return nil, fmt.Errorf("vae encode: image size %d×%d must be positive multiples of %d (at most %d)", H, W, s, maxSide*s)
	}
	if c := v.cfg.InChannels; len(img) != c*H*W {
		return nil, fmt.Errorf("vae encode: image has %d values, want %d×%d×%d = %d", len(img), c, H, W, c*H*W)
	}
	return v.encode(ctx, img, H, W, progress)
}

// maxSide bounds the latent side (8192 px images) so size products cannot overflow.
const maxSide = 1024
