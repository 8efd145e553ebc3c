package inpaint

import (
	"context"
	"errors"
	"fmt"

	"kleinbild/engine/flux2"
	"kleinbild/engine/imageio"
	"kleinbild/engine/sched"
	"kleinbild/engine/torchrand"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
)

// Job is one inpainting run on preprocessed inputs (Flux2KleinInpaintPipeline from the
// prompt embeddings on).
type Job struct {
	// Image is the picture to inpaint at the processing size (Image, Crop.Image, or an
	// Outpaint canvas through Image); Mask its token mask (LatentMask), 1 = repaint.
	Image RGB
	Mask  []float32
	// Reference is the optional extra reference image (Reference), or nil.
	Reference *RGB
	// Prompt holds the prompt embeddings [L, joint_attention_dim]. Negative, when not nil,
	// holds the negative prompt's (same shape) and turns on classifier-free guidance with
	// scale Guidance (base models).
	Prompt, Negative []float32
	Guidance         float32
	// Steps is the full schedule's length; Strength in (0, 1] picks the start step.
	Steps    int
	Strength float64
	// Seed selects the noise (torch CPU randn of [128, H/16, W/16]).
	Seed uint64
	// Observe, when set, receives intermediate tensors under the golden files' names
	// (image_latents_packed, start_latents_packed, step{i}_noise_pred, ...).
	Observe func(name string, data []float32)
	// Progress, when set, is called after each denoising step (1-based) of those run.
	Progress func(step, steps int)
}

// Output is a finished run.
type Output struct {
	TStart  int       // steps skipped (StartStep)
	Latents []float32 // final latents, packed [N, 128]
	Decoded []float32 // the VAE's output [3, H, W], unclamped
}

// Run performs the denoising loop and the decode of the inpainting pipeline (P:1094-1264):
// the image (and the reference) through the VAE encoder as conditioning tokens (T = 10,
// 20), start latents ScaleNoise(image, noise, σ[t_start]), then per step the transformer
// on [latents; conditioning], optional CFG, the Euler step and the Blend with the
// re-noised original, and finally the VAE decode. tr and v must share one backend. The
// latents make one host round trip per step (128 values per token).
func Run(ctx context.Context, tr *flux2.Model, v *vae.VAE, job Job) (Output, error) {
	b := v.Backend()
	txtDim := tr.Config().JointAttentionDim
	tStart, err := job.check(txtDim)
	if err != nil {
		return Output{}, err
	}
	img := job.Image
	gw, gh := img.W/Multiple, img.H/Multiple
	n := gw * gh
	txtLen := len(job.Prompt) / txtDim
	cfg := job.Negative != nil
	observe := func(name string, data []float32) {
		if job.Observe != nil {
			job.Observe(name, data)
		}
	}

	held := &gpu.Held{B: b}
	defer release(held)
	alloc := func(what string, shape ...int) (gpu.Tensor, error) {
		t, err := b.Alloc(gpu.F32, shape...)
		if err != nil {
			return gpu.Tensor{}, fmt.Errorf("inpaint: allocate %s: %w", what, err)
		}
		return held.Keep(t, nil), nil
	}
	tokens, ids, imgLat, err := condition(ctx, v, job, held)
	if err != nil {
		return Output{}, err
	}
	nTotal := len(ids) / 4
	observe("image_latents_packed", imgLat)

	sc := sched.Flow(job.Steps, n)
	noise := Pack(torchrand.New(job.Seed).Randn(Channels * n))
	x := make([]float32, Channels*n)
	if err := ScaleNoise(x, imgLat, noise, sc.Sigmas[tStart]); err != nil {
		return Output{}, err
	}
	observe("start_latents_packed", x)

	txt, err := upload(b, held, "prompt embeddings", job.Prompt, txtLen, txtDim)
	if err != nil {
		return Output{}, err
	}
	var negTxt, unc gpu.Tensor
	if cfg {
		if negTxt, err = upload(b, held, "negative prompt embeddings", job.Negative, txtLen, txtDim); err != nil {
			return Output{}, err
		}
		if unc, err = alloc("unconditional velocity", nTotal, Channels); err != nil {
			return Output{}, err
		}
	}
	vel, err := alloc("velocity", nTotal, Channels)
	if err != nil {
		return Output{}, err
	}
	txtIDs := flux2.TextIDs(txtLen)
	pred := make([]float32, Channels*n)
	scratch := make([]float32, Channels*n)
	run := job.Steps - tStart
	for i := 0; i < run; i++ {
		k := tStart + i
		b.Upload(tokens.Rows(0, n, Channels), x)
		in := flux2.Input{Img: tokens, ImgIDs: ids, Txt: txt, TxtIDs: txtIDs, Timestep: sc.TimestepPassed(k)}
		if err := tr.Forward(ctx, in, vel, nil); err != nil {
			return Output{}, fmt.Errorf("inpaint: denoising step %d: %w", i+1, err)
		}
		cond := vel.Rows(0, n, Channels)
		if cfg {
			in.Txt = negTxt
			if err := tr.Forward(ctx, in, unc, nil); err != nil {
				return Output{}, fmt.Errorf("inpaint: denoising step %d (unconditional): %w", i+1, err)
			}
			b.Guidance(cond, unc.Rows(0, n, Channels), job.Guidance)
		}
		if err := b.Read(pred, cond); err != nil {
			return Output{}, fmt.Errorf("inpaint: denoising step %d: %w", i+1, err)
		}
		observe(fmt.Sprintf("step%d_noise_pred", i), pred)
		EulerStep(x, pred, sc.Sigmas[k+1]-sc.Sigmas[k])
		observe(fmt.Sprintf("step%d_latents_stepped", i), x)
		if err := BlendStep(x, imgLat, noise, job.Mask, scratch, sc.Sigmas, tStart, i); err != nil {
			return Output{}, err
		}
		if j := firstNonFinite(x); j >= 0 {
			return Output{}, fmt.Errorf("inpaint: denoising step %d produced non-finite latents (%v)", i+1, x[j])
		}
		observe(fmt.Sprintf("step%d_latents_after", i), x)
		if job.Progress != nil {
			job.Progress(i+1, run)
		}
	}
	observe("final_latents_packed", x)
	dec, err := decode(ctx, v, x, gh, gw)
	if err != nil {
		return Output{}, fmt.Errorf("inpaint: decode: %w", err)
	}
	observe("decoded", dec)
	return Output{TStart: tStart, Latents: x, Decoded: dec}, nil
}

// check validates the job for a transformer with text width txtDim and returns the start
// step.
func (job Job) check(txtDim int) (int, error) {
	img := job.Image
	if img.W%Multiple != 0 || img.H%Multiple != 0 || img.W <= 0 || img.H <= 0 || len(img.Pix) != img.W*img.H*3 {
		return 0, fmt.Errorf("inpaint: image %d×%d (%d bytes) is not a positive multiple of %d", img.W, img.H, len(img.Pix), Multiple)
	}
	if r := job.Reference; r != nil && (r.W%Multiple != 0 || r.H%Multiple != 0 || r.W <= 0 || r.H <= 0 || len(r.Pix) != r.W*r.H*3) {
		return 0, fmt.Errorf("inpaint: reference %d×%d (%d bytes) is not a positive multiple of %d", r.W, r.H, len(r.Pix), Multiple)
	}
	if gw, gh := img.W/Multiple, img.H/Multiple; len(job.Mask) != gw*gh {
		return 0, fmt.Errorf("inpaint: mask has %d token weights, want %d×%d", len(job.Mask), gw, gh)
	}
	if txtLen := len(job.Prompt) / txtDim; txtLen == 0 || txtLen*txtDim != len(job.Prompt) {
		return 0, fmt.Errorf("inpaint: prompt embeddings have %d values, not a multiple of %d", len(job.Prompt), txtDim)
	}
	if job.Negative != nil && len(job.Negative) != len(job.Prompt) {
		return 0, fmt.Errorf("inpaint: negative prompt embeddings have %d values, want %d", len(job.Negative), len(job.Prompt))
	}
	return StartStep(job.Steps, job.Strength)
}

// condition allocates the joint image sequence [target; image; reference] (tokens, held by
// held), encodes the image (T = 10) and the optional reference (T = 20) into their rows and
// returns the position ids of all rows and the image's packed latents on the host.
func condition(ctx context.Context, v *vae.VAE, job Job, held *gpu.Held) (gpu.Tensor, []int64, []float32, error) {
	img := job.Image
	gw, gh := img.W/Multiple, img.H/Multiple
	n := gw * gh
	nTotal := 2 * n
	if job.Reference != nil {
		nTotal += (job.Reference.W / Multiple) * (job.Reference.H / Multiple)
	}
	tokens, err := v.Backend().Alloc(gpu.F32, nTotal, Channels)
	if err != nil {
		return gpu.Tensor{}, nil, nil, fmt.Errorf("inpaint: allocate image tokens: %w", err)
	}
	held.Keep(tokens, nil)
	ids := append(flux2.ImageIDs(gh, gw, 0), flux2.ImageIDs(gh, gw, 10)...)
	imgLat, err := encode(ctx, v, img, tokens.Rows(n, 2*n, Channels))
	if err != nil {
		return gpu.Tensor{}, nil, nil, fmt.Errorf("inpaint: encode image: %w", err)
	}
	if r := job.Reference; r != nil {
		if _, err := encode(ctx, v, *r, tokens.Rows(2*n, nTotal, Channels)); err != nil {
			return gpu.Tensor{}, nil, nil, fmt.Errorf("inpaint: encode reference: %w", err)
		}
		ids = append(ids, flux2.ImageIDs(r.H/Multiple, r.W/Multiple, 20)...)
	}
	return tokens, ids, imgLat, nil
}

// release waits for the queued work (whose error the caller has met or no longer needs)
// and frees the held tensors.
func release(h *gpu.Held) {
	_ = h.B.Sync()
	h.Free()
}

// upload puts data on b as a tensor held by held.
func upload(b gpu.Backend, held *gpu.Held, what string, data []float32, shape ...int) (gpu.Tensor, error) {
	t, err := gpu.FromHost(b, data, shape...)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("inpaint: upload %s: %w", what, err)
	}
	return held.Keep(t, nil), nil
}

// encode runs a picture through the VAE encoder (the latent mode), patchifies and
// normalises it, writes its packed tokens into dst and returns them on the host.
func encode(ctx context.Context, v *vae.VAE, img RGB, dst gpu.Tensor) ([]float32, error) {
	b := v.Backend()
	held := &gpu.Held{B: b}
	defer release(held)
	in, err := upload(b, held, "picture", imageio.ToTensor(img.Pix, img.W, img.H), 3, img.H, img.W)
	if err != nil {
		return nil, err
	}
	lat, err := v.EncodeTensor(ctx, in, img.H, img.W, nil)
	if err != nil {
		return nil, err
	}
	held.Keep(lat, nil)
	gh, gw := img.H/Multiple, img.W/Multiple
	patch, err := b.Alloc(gpu.F32, Channels, gh, gw)
	if err != nil {
		return nil, err
	}
	held.Keep(patch, nil)
	b.Patchify(patch, lat, Channels/4, img.H/8, img.W/8)
	v.Normalize(patch, patch, gh, gw)
	b.Transpose(dst, patch, Channels, gh*gw)
	host, err := gpu.ToHost(b, dst)
	if err != nil {
		return nil, err
	}
	if j := firstNonFinite(host); j >= 0 {
		return nil, fmt.Errorf("the VAE encoder produced non-finite latents (%v)", host[j])
	}
	return host, nil
}

// decode turns packed latents [gh·gw, 128] into the VAE's picture [3, 16gh, 16gw].
func decode(ctx context.Context, v *vae.VAE, x []float32, gh, gw int) ([]float32, error) {
	b := v.Backend()
	held := &gpu.Held{B: b}
	defer release(held)
	tok, err := upload(b, held, "latents", x, gh*gw, Channels)
	if err != nil {
		return nil, err
	}
	lat, err := b.Alloc(gpu.F32, Channels, gh, gw)
	if err != nil {
		return nil, err
	}
	held.Keep(lat, nil)
	b.Transpose(lat, tok, gh*gw, Channels)
	v.Denormalize(lat, lat, gh, gw)
	z, err := b.Alloc(gpu.F32, Channels/4, 2*gh, 2*gw)
	if err != nil {
		return nil, err
	}
	held.Keep(z, nil)
	b.Unpatchify(z, lat, Channels, gh, gw)
	pix, err := v.DecodeTensor(ctx, z, 2*gh, 2*gw, nil)
	if err != nil {
		return nil, err
	}
	held.Keep(pix, nil)
	out, err := gpu.ToHost(b, pix)
	if err != nil {
		return nil, err
	}
	if j := firstNonFinite(out); j >= 0 {
		return nil, errors.New("the VAE decoder produced non-finite pixels")
	}
	return out, nil
}

// firstNonFinite returns the index of the first NaN or ±Inf in x, or −1.
func firstNonFinite(x []float32) int {
	for i, v := range x {
		if v != v || v > 3.4028235e38 || v < -3.4028235e38 {
			return i
		}
	}
	return -1
}
