//go:build cgo

package webgpu

import (
	"context"
	"fmt"
	"sort"
	"time"

	"kleinbild/gpu"
)

// Tune chooses each family's fastest variant on this device and caches the choice (see
// doc.go). Families whose cache entry matches their SourceHash are not timed unless
// opts.Force; forced families (Options.Variants, $KLEINBILD_WEBGPU_VARIANTS) keep their
// variant. The linear workload is always timed when the cache lacks the device's rate; it
// sets MaxDispatchFLOPs. A winner that differs from the reference by more than TuneTolerance
// is rejected (the reference is kept and the reason noted).
func (b *Backend) Tune(ctx context.Context, opts TuneOptions) (*TuneResult, error) {
	start := time.Now()
	budget := opts.Budget
	if budget <= 0 {
		budget = time.Minute
	}
	ws, scale := opts.Workloads, 1
	if ws == nil {
		var err error
		if ws, scale, err = b.fitWorkloads(ctx, budget); err != nil {
			return nil, err
		}
	}
	dir := opts.CacheDir
	if dir == "" {
		dir = b.cacheDir
	}
	key := cacheKey(b.detail.key, b.defLim)
	cache := loadTuneCache(dir, key)
	if cache == nil || opts.Force {
		cache = &TuneCache{Version: tuneCacheVersion, Adapter: key, Name: b.info.Name, Families: map[string]CachedFamily{}}
	}
	res := &TuneResult{Adapter: b.info.Name, FromCache: true, Scale: scale}
	probed, err := b.startRates(ctx, cache, opts.Force)
	if err != nil {
		return nil, err
	}
	// No shape record stands in for a candidate timed: they are applied again below, or
	// restored when tuning fails.
	kept := b.shapeRecords()
	b.applyLinearShapes(&TuneCache{})
	tuned := false
	defer func() {
		if !tuned {
			b.restoreShapes(kept)
		}
	}()
	lin, hasLin := ws[FamilyLinear]
	measureRate := hasLin && (cache.GPUGFLOPS == 0 || cache.Shape != lin.Name || (opts.CPU != nil && cache.CPUGFLOPS == 0))

	plans, total, dirty, err := b.planTuning(ws, cache, res, opts.Force, measureRate)
	if err != nil {
		return nil, err
	}
	dirty = dirty || probed
	reps := opts.Reps
	if reps <= 0 {
		reps = 5
	}
	// the large and deep Linear classes' candidates, timed on the model's shapes
	var large, deep []string
	if lp := linearPlan(plans); lp != nil && opts.Workloads == nil && !b.Forced(FamilyLinear) {
		large = lp.cands
		deep = linearCandidates(cacheLinearDeep, b.Variants(FamilyLinear))
		total += len(large) + len(deep)
	}
	share := budget / time.Duration(max(total, 1))
	sp := b.planShapes(opts, scale)
	if sp != nil {
		total += len(sp.shapes) * len(sp.cands)
	}
	done := 0
	progress := func(family string) func(string) {
		return func(v string) {
			if opts.Progress != nil {
				opts.Progress(TuneProgress{Family: family, Variant: v, Done: done, Total: total})
			}
			done++
		}
	}
	for _, p := range plans {
		ft := res.family(p.family)
		forced := ft.Forced
		secs, note, err := b.timeFamily(ctx, ws[p.family], p.family, p.cands, progress(p.family), reps, share, start, budget)
		if err != nil {
			return nil, err
		}
		res.FromCache = false
		ft.Seconds, ft.Note, ft.Shape = secs, note, ws[p.family].Name
		best := ft.Variant
		if !forced {
			if best, err = b.pickVariant(ws[p.family], p.family, p.cands, secs, ft); err != nil {
				return nil, err
			}
			cache.Families[p.family] = CachedFamily{Hash: SourceHash(p.family), Variant: best, Seconds: secs}
		}
		if secs[best] > 0 {
			ft.GFLOPS = ws[p.family].FLOPs / secs[best] / 1e9
			// The rate sizes the dispatches of the families timed next (Linear goes first).
			cache.setRate(p.family, ft.GFLOPS, ws[p.family].Name)
			b.setFamilyGFLOPS(p.family, ft.GFLOPS)
		}
	}
	if large != nil {
		if err := b.tuneLinearLarge(ctx, LargeLinearWorkload(scale), large, cache, res, progress(cacheLinearLarge), reps, share, start, budget); err != nil {
			return nil, err
		}
		if err := b.tuneLinearClass(ctx, cacheLinearDeep, DeepLinearWorkload(scale), deep, cache, res, progress(cacheLinearDeep), reps, share, start, budget); err != nil {
			return nil, err
		}
	} else if !opts.Force {
		b.applyLinearClasses(cache)
	}
	if !opts.Force {
		b.applyLinearShapes(cache)
	}
	if sp != nil {
		if err := b.tuneLinearShapes(ctx, *sp, cache, res, progress(FamilyLinear+"@shape"), start, budget); err != nil {
			return nil, err
		}
	}
	if measureRate && opts.CPU != nil {
		g, name, err := opts.CPU(ctx, lin)
		if err != nil {
			return nil, fmt.Errorf("webgpu: tuning: CPU comparison: %w", err)
		}
		cache.CPUGFLOPS, cache.CPUBackend = g, name
	}
	tuned = true
	b.SetMeasuredGFLOPS(cache.GPUGFLOPS)
	b.setTuned(cacheCurrent(cache))
	res.GPUGFLOPS, res.CPUGFLOPS, res.CPUName, res.Shape = cache.GPUGFLOPS, cache.CPUGFLOPS, cache.CPUBackend, cache.Shape
	if (dirty || !res.FromCache) && !opts.NoSave {
		cache.Tuned = time.Now().UTC().Truncate(time.Second)
		if err := saveTuneCache(dir, cache); err != nil {
			return res, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// startRates gives tuning its dispatch sizes before anything is timed: the rates of cache,
// and the FMA probe's peak when the cache has none (or force), recorded in cache (probed).
func (b *Backend) startRates(ctx context.Context, cache *TuneCache, force bool) (probed bool, err error) {
	b.applyRates(cache)
	if cache.FMAGFLOPS > 0 && !force {
		return false, nil
	}
	g, err := b.probeFMA(ctx)
	if err != nil {
		return false, fmt.Errorf("webgpu: tuning: FMA probe: %w", err)
	}
	cache.FMAGFLOPS = g
	b.setFMAGFLOPS(g)
	return true, nil
}

// applyRates sets the rates of c that size dispatches (dispatch.go).
func (b *Backend) applyRates(c *TuneCache) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rates = deviceRates{linear: c.GPUGFLOPS, attention: c.AttentionGFLOPS, attention512: c.Attention512GFLOPS, fma: c.FMAGFLOPS}
}

// setRate records family's measured rate on its tuning workload shape (the families whose
// rate sizes dispatches; Linear's is the device's rate).
func (c *TuneCache) setRate(family string, gflops float64, shape string) {
	switch family {
	case FamilyLinear:
		c.GPUGFLOPS, c.Shape = gflops, shape
	case FamilyAttention:
		c.AttentionGFLOPS = gflops
	case FamilyAttention512:
		c.Attention512GFLOPS = gflops
	}
}

// linearPlan is the plan of FamilyLinear among plans (nil: not timed).
func linearPlan(plans []tunePlan) *tunePlan {
	for i := range plans {
		if plans[i].family == FamilyLinear {
			return &plans[i]
		}
	}
	return nil
}

// tunePlan is one family to time, with its candidates.
type tunePlan struct {
	family string
	cands  []string
}

// planTuning decides per family of ws whether it is timed (returned, with the number of
// candidates in all), taken from the cache, forced or has one variant only, and records
// that in res; dirty reports a cache entry added without timing.
func (b *Backend) planTuning(ws map[string]Workload, cache *TuneCache, res *TuneResult, force, measureRate bool) (plans []tunePlan, total int, dirty bool, err error) {
	for _, f := range Families() {
		_, ok := ws[f]
		names := b.Variants(f)
		ft := FamilyTuning{Family: f, Variant: b.Variant(f)}
		rate := f == FamilyLinear && measureRate // timed anyway, for the device's rate
		switch {
		case !ok || len(names) == 0:
			continue
		case b.Forced(f):
			ft.Forced = true
			if rate {
				plans = append(plans, tunePlan{f, []string{ft.Variant}})
				total++
			}
		case !force && !rate && cache.Families[f].Hash == SourceHash(f) && contains(names, cache.Families[f].Variant):
			ft.Variant, ft.Cached = cache.Families[f].Variant, true
			if err := b.SetVariant(f, ft.Variant); err != nil {
				return nil, 0, false, err
			}
		case len(names) == 1 && !rate:
			ft.Variant = names[0]
			cache.Families[f] = CachedFamily{Hash: SourceHash(f), Variant: names[0]}
			dirty = true
		default:
			if f == FamilyLinear {
				names = linearCandidates(f, names)
			}
			plans = append(plans, tunePlan{f, names})
			total += len(names)
		}
		res.Families = append(res.Families, ft)
	}
	return plans, total, dirty, nil
}

// pickVariant chooses the fastest of cands by secs, checks it against the reference
// cands[0] (rejecting it beyond TuneTolerance, noted in ft) and sets it.
func (b *Backend) pickVariant(w Workload, family string, cands []string, secs map[string]float64, ft *FamilyTuning) (string, error) {
	best := fastest(secs, cands[0])
	if best != cands[0] {
		d, err := b.compareVariants(w, family, cands[0], best)
		if err != nil {
			return "", err
		}
		ft.RelL2 = d
		if d > TuneTolerance {
			ft.Note = fmt.Sprintf("%s rejected: rel-L2 %.2g against the reference %s", best, d, cands[0])
			best, ft.RelL2 = cands[0], 0
		}
	}
	if err := b.SetVariant(family, best); err != nil {
		return "", err
	}
	ft.Variant = best
	return best, nil
}

// timeFamily times each candidate of family on w (restoring the family's variant after),
// within share each and the overall budget since start. Candidates past the budget are
// skipped with a note.
func (b *Backend) timeFamily(ctx context.Context, w Workload, family string, cands []string, progress func(string),
	reps int, share time.Duration, start time.Time, budget time.Duration) (map[string]float64, string, error) {
	prev := b.Variant(family)
	defer b.setVariantQuiet(family, prev)
	p, err := w.Prepare(b)
	if err != nil {
		return nil, "", fmt.Errorf("webgpu: tuning %s: %w", family, err)
	}
	defer p.Free()
	secs := map[string]float64{}
	var skipped []string
	for i, v := range cands {
		if i > 0 && time.Since(start) > budget {
			skipped = append(skipped, v)
			continue
		}
		progress(v)
		b.setVariantQuiet(family, v)
		d, err := p.Time(ctx, reps, share)
		if err != nil {
			return nil, "", fmt.Errorf("webgpu: tuning %s variant %s: %w", family, v, err)
		}
		secs[v] = d.Seconds()
	}
	note := ""
	if len(skipped) > 0 {
		note = fmt.Sprintf("time budget spent: %v not timed", skipped)
	}
	return secs, note, nil
}

// setVariantQuiet sets a variant known to fit (forced flags untouched).
func (b *Backend) setVariantQuiet(family, v string) {
	if v != "" {
		_ = b.SetVariant(family, v)
	}
}

// compareVariants runs w with variants ref and cand and returns the rel-L2 difference of the
// outputs (the family's variant is restored after).
func (b *Backend) compareVariants(w Workload, family, ref, cand string) (float64, error) {
	prev := b.Variant(family)
	defer b.setVariantQuiet(family, prev)
	p, err := w.Prepare(b)
	if err != nil {
		return 0, fmt.Errorf("webgpu: checking %s: %w", family, err)
	}
	defer p.Free()
	b.setVariantQuiet(family, ref)
	want, err := p.Output()
	if err != nil {
		return 0, fmt.Errorf("webgpu: checking %s variant %s: %w", family, ref, err)
	}
	b.setVariantQuiet(family, cand)
	got, err := p.Output()
	if err != nil {
		return 0, fmt.Errorf("webgpu: checking %s variant %s: %w", family, cand, err)
	}
	return relL2(got, want), nil
}

// fastest is the variant with the least time (ties and an empty map: ref).
func fastest(secs map[string]float64, ref string) string {
	names := make([]string, 0, len(secs))
	for n := range secs {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bt := ref, secs[ref]
	for _, n := range names {
		if t := secs[n]; t > 0 && (bt <= 0 || t < bt) {
			best, bt = n, t
		}
	}
	return best
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// applyCache sets the cached variants of this adapter (families whose SourceHash matches
// and that are not forced) and the measured rate.
func (b *Backend) applyCache(dir string) {
	c := loadTuneCache(dir, cacheKey(b.detail.key, b.defLim))
	if c == nil {
		return
	}
	b.setTuned(cacheCurrent(c))
	for f, e := range c.Families {
		if e.Hash == SourceHash(f) && !b.Forced(f) && contains(b.Variants(f), e.Variant) {
			b.setVariantQuiet(f, e.Variant)
		}
	}
	b.applyLinearClasses(c)
	b.applyLinearShapes(c)
	b.applyRates(c)
}

// tuneSafety is how much slower per FLOP than the probe's small Linear the tuning workloads
// are assumed to run (attention reaches a few times less than Linear on every device seen).
const tuneSafety = 4

// fitWorkloads picks the largest ScaledModelWorkloads that tuning can time within budget on
// this device. A discrete GPU tunes at the model's real shapes (scale 1): a small probe is
// launch-bound there and called an H200 "a slow device". Elsewhere it times a small Linear
// (cheap everywhere) and assumes the model's workloads run tuneSafety times slower per FLOP,
// each variant twice (warm-up and one timed run): a software adapter shrinks the shapes.
func (b *Backend) fitWorkloads(ctx context.Context, budget time.Duration) (map[string]Workload, int, error) {
	if b.info.Kind == gpu.KindDiscrete {
		return ScaledModelWorkloads(1), 1, nil
	}
	probe := LinearWorkload(96, 192, 576, true)
	p, err := probe.Prepare(b)
	if err != nil {
		return nil, 0, fmt.Errorf("webgpu: tuning probe: %w", err)
	}
	d, err := p.Time(ctx, 2, time.Second)
	p.Free()
	if err != nil {
		return nil, 0, fmt.Errorf("webgpu: tuning probe: %w", err)
	}
	rate := probe.FLOPs / max(d.Seconds(), 1e-9) / tuneSafety
	for _, scale := range []int{1, 2, 4, 8, 16} {
		ws := ScaledModelWorkloads(scale)
		var cost float64
		for f, w := range ws {
			cost += 2 * float64(len(b.Variants(f))) * w.FLOPs / rate
		}
		if cost <= budget.Seconds() {
			return ws, scale, nil
		}
	}
	return ScaledModelWorkloads(32), 32, nil
}

// TuningCurrent reports whether the tuning cache of adapter a (default folder, adapter
// limits) was written for these kernel sources: every family's entry matches its SourceHash.
// After an update of the kernels the cached speeds are stale, and DefaultTuned in package
// backends measures again.
func TuningCurrent(a Adapter) bool {
	return cacheCurrent(CachedTuning(a, "", false))
}

// cacheCurrent reports whether c holds an entry of these kernel sources for every family and
// the device's measured rate.
func cacheCurrent(c *TuneCache) bool {
	if c == nil || c.GPUGFLOPS <= 0 {
		return false
	}
	for _, f := range Families() {
		if e, ok := c.Families[f]; !ok || e.Hash != SourceHash(f) {
			return false
		}
	}
	return true
}

// Tuned reports whether the device runs a current tuning: the cache applied when it opened
// (Options.Tuned) or a Tune since held a choice of these kernel sources for every family and
// the measured rate. An untuned device runs each family's reference variant (or a stale
// choice) and sizes its dispatches from its FMA probe or its kind (dispatch.go).
func (b *Backend) Tuned() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tuned
}

func (b *Backend) setTuned(v bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tuned = v
}
