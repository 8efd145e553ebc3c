package engine

import (
	"context"
	"fmt"

	"kleinbild/gpu"
)

// decode is the decoder stage: the final latents lat [128, gh, gw] (final is their host
// copy) denormalised, unpatchified and through the VAE decoder to pixels [3, H, W] in about
// [-1, 1], checked.
func (m *Model) decode(ctx context.Context, r *run, p Plan, lat gpu.Tensor, final []float32, ts *gpu.Held) ([]float32, error) {
	r.report(Progress{Phase: PhaseDecoding})
	gw, gh := p.Grid()
	if err := r.dump("latents_final", []int{1, latentChannels, gh, gw}, final); err != nil {
		return nil, err
	}
	den, err := alloc(ts, "denormalised latents", latentChannels, gh, gw)
	if err != nil {
		return nil, err
	}
	m.vae.Denormalize(den, lat, gh, gw)
	z, err := alloc(ts, "VAE latents", latentChannels/4, 2*gh, 2*gw)
	if err != nil {
		return nil, err
	}
	m.b.Unpatchify(z, den, latentChannels, gh, gw)
	pixT, err := m.vae.DecodeTensor(ctx, z, 2*gh, 2*gw, func(done, total int) {
		r.report(Progress{Phase: PhaseDecoding, Block: done, Blocks: total})
	})
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	ts.Keep(pixT, nil)
	pix, err := gpu.ToHost(m.b, pixT)
	if err != nil {
		return nil, fmt.Errorf("decode: read image: %w", err)
	}
	if j := firstNonFinite(pix); j >= 0 {
		return nil, fmt.Errorf("decode: the VAE decoder produced non-finite pixels (%s) — the VAE weights may be corrupt; %s", nonFiniteName(float64(pix[j])), corruptHint)
	}
	if err := r.dump("image", []int{1, 3, p.HeightPx, p.WidthPx}, pix); err != nil {
		return nil, err
	}
	r.endPhase(PhaseDecoding)
	return pix, nil
}
