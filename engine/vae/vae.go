// Package vae is the FLUX.2 autoencoder (diffusers' AutoencoderKLFlux2): the convolutional
// encoder (image -> latent mode) and decoder (latent -> image), the BatchNorm
// (de)normalisation the FLUX.2 pipeline applies to patchified latents, and the conversion of
// decoded images to 8-bit RGB. The 2×2 latent patchify and the pack layouts are backend ops
// (gpu.Backend's Patchify, Unpatchify and Transpose).
//
// Layouts are channels-first and unbatched: an image is [3, H, W] in [-1, 1], a latent
// [LatentChannels, H/8, W/8], a patchified latent [4·LatentChannels, H/16, W/16] and a
// packed one [(H/16)·(W/16), 4·LatentChannels].
//
// All arithmetic runs on a gpu.Backend. Weights stay as the checkpoint stores them: BF16
// convolution kernels and linear weights become backend tensors made from zero-copy views of
// the memory-mapped file (168 MB for the real VAE; views on the CPU backends, one copy on a
// GPU), widened to float32 by the kernels; activations and all arithmetic are float32, as
// diffusers runs the VAE (force_upcast). Norm parameters, biases and the BatchNorm
// statistics are converted to float32 at load.
package vae

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"kleinbild/engine/bind"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// VAE is a loaded autoencoder. It runs one Encode or Decode at a time.
type VAE struct {
	cfg     Config
	b       gpu.Backend
	ck      weights.Source
	tensors gpu.Held // every weight tensor, for Close
	enc     encoder
	dec     decoder
	bnMean  gpu.Tensor // bn.running_mean [4·LatentChannels]
	bnStd   gpu.Tensor // sqrt(bn.running_var + batch_norm_eps)
}

// Load opens the vae/ folder of a model (config.json and the safetensors weights), checks
// that every tensor the network needs is present with the right shape and makes them
// tensors of b.
func Load(dir string, b gpu.Backend) (*VAE, error) {
	if b == nil {
		return nil, errors.New("load VAE: nil backend")
	}
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	ck, err := weights.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("load VAE weights: %w", err)
	}
	v, err := LoadFrom(dir, cfg, ck, b)
	if err != nil {
		ck.Close()
		return nil, err
	}
	return v, nil
}

// LoadFrom binds the VAE cfg describes to the tensors of src, checked as by Load; dir names
// the folder of src and its config.json in errors. The VAE owns src from then on (Close
// closes it); on error the caller still does.
func LoadFrom(dir string, cfg Config, src weights.Source, b gpu.Backend) (*VAE, error) {
	if b == nil {
		return nil, errors.New("load VAE: nil backend")
	}
	if err := checkCounts(cfg, src); err != nil {
		return nil, fmt.Errorf("load VAE: %s: %w", filepath.Join(dir, "config.json"), err)
	}
	l := reader{bind.New(src, b)}
	v := &VAE{cfg: cfg, b: b, ck: src}
	v.enc, v.dec, v.bnMean, v.bnStd = l.bind(cfg)
	l.FailUnread("config.json (layers_per_block, mid_block_add_attention, use_quant_conv, use_post_quant_conv) does not describe these weights", "bn.num_batches_tracked")
	if err := l.Err(maxLoadErrors); err != nil {
		l.Free()
		return nil, fmt.Errorf("load VAE from %s: %w", dir, err)
	}
	v.tensors = l.Made()
	return v, nil
}

// Config returns the model's configuration.
func (v *VAE) Config() Config { return v.cfg }

// Backend is the backend the VAE's tensors live on.
func (v *VAE) Backend() gpu.Backend { return v.b }

// Close frees the weight tensors and unmaps the weights. The VAE must not be used
// afterwards (Encode and Decode fail; Normalize and Denormalize leave an error on the
// backend).
func (v *VAE) Close() error {
	if v.ck == nil {
		return nil
	}
	v.tensors.Free()
	v.enc, v.dec = encoder{}, decoder{}
	v.bnMean, v.bnStd = gpu.Tensor{}, gpu.Tensor{}
	err := v.ck.Close()
	v.ck = nil
	return err
}

// Decode turns a latent [LatentChannels, h, w] (already denormalised and unpatchified) into
// an image [OutChannels, 8h, 8w], unclamped (roughly in [-1, 1]). progress, if non-nil, is
// called after each block; ctx is checked between blocks. It is DecodeTensor on host data.
func (v *VAE) Decode(ctx context.Context, latent []float32, h, w int, progress func(done, total int)) ([]float32, error) {
	if err := v.checkDecode(len(latent), h, w); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := gpu.FromHost(v.b, latent, v.cfg.LatentChannels, h, w)
	if err != nil {
		return nil, fmt.Errorf("vae decode: %w", err)
	}
	defer v.b.Free(x)
	y, err := v.DecodeTensor(ctx, x, h, w, progress)
	if err != nil {
		return nil, err
	}
	defer v.b.Free(y)
	out, err := gpu.ToHost(v.b, y)
	if err != nil {
		return nil, fmt.Errorf("vae decode: %w", err)
	}
	return out, nil
}

// DecodeTensor is Decode on v's backend: latent [LatentChannels, h, w] (F32) in, a newly
// allocated image [OutChannels, 8h, 8w] out, which the caller frees.
func (v *VAE) DecodeTensor(ctx context.Context, latent gpu.Tensor, h, w int, progress func(done, total int)) (gpu.Tensor, error) {
	if err := v.checkDecode(latent.Len(), h, w); err != nil {
		return gpu.Tensor{}, err
	}
	if latent.DType() != gpu.F32 {
		return gpu.Tensor{}, fmt.Errorf("vae decode: latent is %s, want f32", latent.DType())
	}
	return v.decode(ctx, latent, h, w, progress)
}

func (v *VAE) checkDecode(n, h, w int) error {
	if v.ck == nil {
		return errors.New("vae decode: VAE is closed")
	}
	c := v.cfg.LatentChannels
	if h <= 0 || w <= 0 || h > maxSide || w > maxSide {
		return fmt.Errorf("vae decode: latent size %d×%d out of range 1..%d", h, w, maxSide)
	}
	if n != c*h*w {
		return fmt.Errorf("vae decode: latent has %d values, want %d×%d×%d = %d", n, c, h, w, c*h*w)
	}
	return nil
}

// Encode returns the latent mode [LatentChannels, H/8, W/8] (the first LatentChannels
// channels of quant_conv(encoder(img)), no sampling) of an image [InChannels, H, W] in
// [-1, 1]. H and W must be positive multiples of 8 (the scale factor). progress, if
// non-nil, is called after each block; ctx is checked between blocks. It is EncodeTensor on
// host data.
func (v *VAE) Encode(ctx context.Context, img []float32, H, W int, progress func(done, total int)) ([]float32, error) {
	if err := v.checkEncode(len(img), H, W); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := gpu.FromHost(v.b, img, v.cfg.InChannels, H, W)
	if err != nil {
		return nil, fmt.Errorf("vae encode: %w", err)
	}
	defer v.b.Free(x)
	y, err := v.EncodeTensor(ctx, x, H, W, progress)
	if err != nil {
		return nil, err
	}
	defer v.b.Free(y)
	out, err := gpu.ToHost(v.b, y)
	if err != nil {
		return nil, fmt.Errorf("vae encode: %w", err)
	}
	return out, nil
}

// EncodeTensor is Encode on v's backend: img [InChannels, H, W] (F32) in, a newly
// allocated latent [LatentChannels, H/8, W/8] out, which the caller frees.
func (v *VAE) EncodeTensor(ctx context.Context, img gpu.Tensor, H, W int, progress func(done, total int)) (gpu.Tensor, error) {
	if err := v.checkEncode(img.Len(), H, W); err != nil {
		return gpu.Tensor{}, err
	}
	if img.DType() != gpu.F32 {
		return gpu.Tensor{}, fmt.Errorf("vae encode: image is %s, want f32", img.DType())
	}
	return v.encode(ctx, img, H, W, progress)
}

func (v *VAE) checkEncode(n, H, W int) error {
	if v.ck == nil {
		return errors.New("vae encode: VAE is closed")
	}
	s := v.cfg.ScaleFactor()
	if H <= 0 || W <= 0 || H%s != 0 || W%s != 0 || H > maxSide*s || W > maxSide*s {
		return fmt.Errorf("vae encode: image size %d×%d must be positive multiples of %d (at most %d)", H, W, s, maxSide*s)
	}
	if c := v.cfg.InChannels; n != c*H*W {
		return fmt.Errorf("vae encode: image has %d values, want %d×%d×%d = %d", n, c, H, W, c*H*W)
	}
	return nil
}

// maxSide bounds the latent side (8192 px images) so size products cannot overflow.
const maxSide = 1024
