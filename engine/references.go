package engine

import (
	"context"
	"fmt"
	"image"

	"kleinbild/engine/flux2"
	"kleinbild/engine/imageio"
	"kleinbild/gpu"
)

// reference is a reference image read and preprocessed: pix [3, h, w] in [-1, 1].
type reference struct {
	pix  []float32
	w, h int
}

// loadReferences reads and preprocesses the reference images, first of all, so that a bad
// file fails fast.
func loadReferences(paths []string) ([]reference, error) {
	var refs []reference
	for i, path := range paths {
		img, err := imageio.LoadReference(path)
		if err != nil {
			return nil, fmt.Errorf("reference %d: %w", i+1, err)
		}
		pix, w, h, err := imageio.Preprocess(img)
		if err != nil {
			return nil, fmt.Errorf("reference %d (%s): %w", i+1, path, err)
		}
		refs = append(refs, reference{pix, w, h})
	}
	return refs, nil
}

// referenceSizes are the preprocessed sizes NewPlan takes.
func referenceSizes(refs []reference) []image.Point {
	var out []image.Point
	for _, r := range refs {
		out = append(out, image.Pt(r.w, r.h))
	}
	return out
}

// encodeReferences is the reference stage: it allocates the joint image sequence img
// [target tokens + reference tokens, 128] and writes each reference's VAE latents into its
// rows, returning img and the position ids of all its tokens (references at t = 10, 20, ...).
func (m *Model) encodeReferences(ctx context.Context, r *run, p Plan, refs []reference, ts *gpu.Held) (gpu.Tensor, []int64, error) {
	gw, gh := p.Grid()
	nTarget := gw * gh
	nTotal := nTarget + p.RefTokens()
	img, err := alloc(ts, "image tokens", nTotal, latentChannels)
	if err != nil {
		return gpu.Tensor{}, nil, err
	}
	ids := make([]int64, 0, nTotal*4)
	ids = append(ids, flux2.ImageIDs(gh, gw, 0)...)
	off := nTarget
	for i, ref := range refs {
		r.report(Progress{Phase: PhaseRefs, Step: i + 1, Steps: len(refs)})
		rh, rw := ref.h/16, ref.w/16
		if err := m.encodeReference(ctx, ref.pix, ref.h, ref.w, img.Rows(off, off+rh*rw, latentChannels)); err != nil {
			return gpu.Tensor{}, nil, fmt.Errorf("encode reference %d: %w", i+1, err)
		}
		ids = append(ids, flux2.ImageIDs(rh, rw, int64(10+10*i))...)
		off += rh * rw
	}
	if len(refs) > 0 {
		r.endPhase(PhaseRefs)
	}
	return img, ids, nil
}

// encodeReference runs a preprocessed reference image pix [3, h, w] through the VAE
// encoder and writes its packed, normalised tokens [(h/16)·(w/16), 128] into dst.
func (m *Model) encodeReference(ctx context.Context, pix []float32, h, w int, dst gpu.Tensor) error {
	ts := &gpu.Held{B: m.b}
	defer func() {
		_ = m.b.Sync()
		ts.Free()
	}()
	in, err := upload(ts, "reference image", pix, 3, h, w)
	if err != nil {
		return err
	}
	lat, err := m.vae.EncodeTensor(ctx, in, h, w, nil) // [32, h/8, w/8]
	if err != nil {
		return err
	}
	ts.Keep(lat, nil)
	rh, rw := h/16, w/16
	patch, err := alloc(ts, "patchified reference latents", latentChannels, rh, rw)
	if err != nil {
		return err
	}
	m.b.Patchify(patch, lat, latentChannels/4, h/8, w/8)
	norm, err := alloc(ts, "normalised reference latents", latentChannels, rh, rw)
	if err != nil {
		return err
	}
	m.vae.Normalize(norm, patch, rh, rw)
	host, err := gpu.ToHost(m.b, norm) // 128·tokens values, read before the deferred free
	if err != nil {
		return err
	}
	if j := firstNonFinite(host); j >= 0 {
		return fmt.Errorf("the VAE encoder produced non-finite latents (%s) — the VAE weights may be corrupt; %s", nonFiniteName(float64(host[j])), corruptHint)
	}
	m.b.Transpose(dst, norm, latentChannels, rh*rw)
	return m.b.Sync() // before the deferred free, so that no error of this work is lost
}
