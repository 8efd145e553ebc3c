//go:build cgo

package webgpu

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kleinbild/internal/safefile"
)

// openWith opens the best adapter with opts, skipping as open does when there is none.
func openWith(t *testing.T, opts Options) *Backend {
	t.Helper()
	b, err := New(opts)
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatalf("KLEINBILD_REQUIRE_WEBGPU=1 but: %v", err)
		}
		t.Skipf("no WebGPU adapter: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func readCache(t *testing.T, b *Backend, dir string) *TuneCache {
	t.Helper()
	path, err := cachePath(dir, cacheKey(b.detail.key, b.defLim))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := safefile.ReadRegular(path, maxTuneCacheBytes)
	if err != nil {
		t.Fatalf("cache file: %v", err)
	}
	c, err := ParseTuneCache(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTuneCache tunes on tiny shapes (lavapipe is slow), checks that every family gets a
// variant it can run, that a second run takes everything from the cache, that a stale
// SourceHash makes the family tune again, and that Options.Tuned applies the cache.
func TestTuneCache(t *testing.T) {
	dir := t.TempDir()
	b := openWith(t, Options{Adapter: -1, CacheDir: dir})
	var steps []TuneProgress
	rates := map[string]deviceRates{} // at each family's first candidate
	opts := TuneOptions{Workloads: TinyWorkloads(), Budget: 20 * time.Second, Reps: 2,
		Progress: func(p TuneProgress) {
			steps = append(steps, p)
			if _, ok := rates[p.Family]; !ok {
				b.mu.Lock()
				rates[p.Family] = b.rates
				b.mu.Unlock()
			}
		}}
	if b.Tuned() {
		t.Error("a device opened without a cache reports Tuned")
	}
	res, err := b.Tune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The FMA probe sizes Linear's dispatches; Linear's measured rate the later families'.
	if r := rates[FamilyLinear]; r.fma <= 0 {
		t.Errorf("Linear timed before the FMA probe set a rate: %+v", r)
	}
	for _, f := range []string{FamilyConv, FamilyAttention, FamilyAttention512} {
		if r, ok := rates[f]; ok && r.linear <= 0 {
			t.Errorf("%s timed before Linear's rate was set: %+v", f, r)
		}
	}
	if _, ok := rates[FamilyAttention]; ok && b.rates.attention <= 0 {
		t.Errorf("attention timed but its rate not kept: %+v", b.rates)
	}
	if !b.Tuned() {
		t.Error("not Tuned after tuning")
	}
	if res.FromCache || res.GPUGFLOPS <= 0 || len(steps) == 0 {
		t.Fatalf("first tuning: from cache %v, rate %g GFLOP/s, %d progress steps", res.FromCache, res.GPUGFLOPS, len(steps))
	}
	for _, f := range res.Families {
		t.Logf("%s: %s %v %s", f.Family, f.Variant, f.Seconds, f.Note)
		if !contains(b.Variants(f.Family), f.Variant) || b.Variant(f.Family) != f.Variant {
			t.Errorf("%s: chose %q, backend runs %q, fitting %v", f.Family, f.Variant, b.Variant(f.Family), b.Variants(f.Family))
		}
		if f.RelL2 > TuneTolerance {
			t.Errorf("%s: chosen variant off by rel-L2 %g", f.Family, f.RelL2)
		}
	}
	if got := b.MaxDispatchFLOPs(); got != res.GPUGFLOPS*1e9*DispatchSeconds {
		t.Errorf("MaxDispatchFLOPs %g after measuring %g GFLOP/s", got, res.GPUGFLOPS)
	}
	c := readCache(t, b, dir)
	for _, f := range Families() {
		if c.Families[f].Hash != SourceHash(f) {
			t.Errorf("cache entry of %s: hash %q, want %q", f, c.Families[f].Hash, SourceHash(f))
		}
	}

	again, err := b.Tune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !again.FromCache || again.GPUGFLOPS != res.GPUGFLOPS {
		t.Errorf("second tuning: from cache %v, rate %g (first %g)", again.FromCache, again.GPUGFLOPS, res.GPUGFLOPS)
	}

	// A kernel source change (another hash) invalidates the family's entry.
	e := c.Families[FamilyLinear]
	e.Hash = "stale"
	c.Families[FamilyLinear] = e
	if err := saveTuneCache(dir, c); err != nil {
		t.Fatal(err)
	}
	third, err := b.Tune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c = readCache(t, b, dir)
	if h := c.Families[FamilyLinear].Hash; h != SourceHash(FamilyLinear) {
		t.Errorf("after a hash change the linear entry has hash %q, want %q", h, SourceHash(FamilyLinear))
	}
	for _, f := range third.Families {
		if f.Family == FamilyLinear && (f.Cached || (len(f.Seconds) == 0 && len(b.Variants(f.Family)) > 1)) {
			t.Errorf("linear with a stale hash was not timed again: %+v", f)
		}
		if f.Family != FamilyLinear && len(b.Variants(f.Family)) > 1 && !f.Cached {
			t.Errorf("%s was tuned again though only linear's hash changed", f.Family)
		}
	}

	// Options.Tuned applies the cached variants and rate on open.
	b2 := openWith(t, Options{Adapter: -1, CacheDir: dir, Tuned: true})
	if b2.MeasuredGFLOPS() != c.GPUGFLOPS || c.GPUGFLOPS <= 0 {
		t.Errorf("Tuned open: rate %g, cached %g", b2.MeasuredGFLOPS(), c.GPUGFLOPS)
	}
	want := deviceRates{linear: c.GPUGFLOPS, attention: c.AttentionGFLOPS, attention512: c.Attention512GFLOPS, fma: c.FMAGFLOPS}
	if b2.rates != want || c.FMAGFLOPS <= 0 || !b2.Tuned() {
		t.Errorf("Tuned open: rates %+v, tuned %v; cache %+v", b2.rates, b2.Tuned(), want)
	}
	for _, f := range Families() {
		if got, want := b2.Variant(f), c.Families[f].Variant; got != want {
			t.Errorf("Tuned open: %s runs %s, cache says %s", f, got, want)
		}
	}
	b3 := openWith(t, Options{Adapter: -1, CacheDir: dir})
	if b3.MeasuredGFLOPS() != 0 || b3.Tuned() {
		t.Errorf("untuned open: rate %g, want 0 (unmeasured); Tuned %v", b3.MeasuredGFLOPS(), b3.Tuned())
	}
	if got, want := b3.MaxDispatchFLOPs(), float64(unmeasuredGFLOPS)*1e9*DispatchSeconds; got != want {
		t.Errorf("unmeasured MaxDispatchFLOPs %g, want %g", got, want)
	}
}

// TestTuneForced: a forced variant (Options.Variants or the environment) survives tuning,
// and unknown families or variants fail at open.
func TestTuneForced(t *testing.T) {
	probe := openWith(t, Options{Adapter: -1})
	names := probe.Variants(FamilyLinear)
	last := names[len(names)-1]
	dir := t.TempDir()
	b := openWith(t, Options{Adapter: -1, CacheDir: dir, Variants: map[string]string{FamilyLinear: last}})
	if !b.Forced(FamilyLinear) || b.Variant(FamilyLinear) != last || b.Forced(FamilyConv) {
		t.Fatalf("forced %v, variant %q, want %q", b.Forced(FamilyLinear), b.Variant(FamilyLinear), last)
	}
	res, err := b.Tune(context.Background(), TuneOptions{Workloads: TinyWorkloads(), Budget: 10 * time.Second, Reps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if b.Variant(FamilyLinear) != last || !res.family(FamilyLinear).Forced {
		t.Errorf("tuning changed the forced linear variant to %q", b.Variant(FamilyLinear))
	}
	if _, err := New(Options{Adapter: -1, Variants: map[string]string{FamilyLinear: "no-such-variant"}}); err == nil {
		t.Error("New with an unknown variant succeeded")
	}
	t.Setenv(EnvVariants, "linear="+names[0])
	b4 := openWith(t, Options{Adapter: -1, Variants: map[string]string{FamilyLinear: last}})
	if b4.Variant(FamilyLinear) != names[0] || !b4.Forced(FamilyLinear) {
		t.Errorf("$%s: variant %q, want %q", EnvVariants, b4.Variant(FamilyLinear), names[0])
	}
	t.Setenv(EnvVariants, "nosuchfamily=x")
	if _, err := New(Options{Adapter: -1}); err == nil {
		t.Errorf("New with $%s naming an unknown family succeeded", EnvVariants)
	}
}

func TestParseVariants(t *testing.T) {
	got, err := ParseVariants(" linear = a , attention=b,")
	if err != nil || len(got) != 2 || got["linear"] != "a" || got["attention"] != "b" {
		t.Errorf("ParseVariants: %v, %v", got, err)
	}
	for _, bad := range []string{"linear", "linear=", "gemm=x", "=x"} {
		if _, err := ParseVariants(bad); err == nil {
			t.Errorf("ParseVariants(%q) succeeded", bad)
		}
	}
}

func TestSourceHash(t *testing.T) {
	seen := map[string]string{}
	for _, f := range Families() {
		h := SourceHash(f)
		if len(h) != 16 || h != SourceHash(f) {
			t.Errorf("SourceHash(%s) = %q: not a stable 16-digit hash", f, h)
		}
		if other, ok := seen[h]; ok {
			t.Errorf("families %s and %s share hash %s", f, other, h)
		}
		seen[h] = f
	}
}

func TestCacheFileAtomic(t *testing.T) {
	dir := t.TempDir()
	c := &TuneCache{Version: tuneCacheVersion, Adapter: "k", Families: map[string]CachedFamily{"linear": {Hash: "h", Variant: "v"}}, GPUGFLOPS: 3}
	if err := saveTuneCache(dir, c); err != nil {
		t.Fatal(err)
	}
	got := loadTuneCache(dir, "k")
	if got == nil || got.Families["linear"].Variant != "v" || got.GPUGFLOPS != 3 {
		t.Fatalf("round trip: %+v", got)
	}
	if loadTuneCache(dir, "other") != nil {
		t.Error("cache of another adapter was accepted")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("cache folder holds %d entries, want the one file", len(ents))
	}
	path, _ := cachePath(dir, "k")
	// Written through internal/atomicfile: a new file gets 0644, not a temporary file's 0600.
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("cache file mode %v (%v), want 0644", st.Mode(), err)
	}
	os.WriteFile(path, []byte("{not json"), 0o644)
	if loadTuneCache(dir, "k") != nil {
		t.Error("a corrupt cache file was accepted")
	}
	raw, _ := json.Marshal(map[string]any{"version": 99, "adapter": "k"})
	os.WriteFile(filepath.Join(dir, filepath.Base(path)), raw, 0o644)
	if loadTuneCache(dir, "k") != nil {
		t.Error("a cache file of another version was accepted")
	}
}

// TestFitWorkloads: tuning uses the model's real shapes when the budget allows and shrinks
// them (up to 32×) when it does not.
func TestFitWorkloads(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	ws, scale, err := b.fitWorkloads(context.Background(), 1000*time.Hour)
	if err != nil || scale != 1 || ws[FamilyLinear].Name != ModelWorkloads()[FamilyLinear].Name {
		t.Errorf("unbounded budget: scale %d, %v", scale, err)
	}
	if _, scale, err := b.fitWorkloads(context.Background(), time.Nanosecond); err != nil || scale != 32 {
		t.Errorf("no budget: scale %d, want 32 (%v)", scale, err)
	}
}

// TestSourceHashChanges: the hash follows the kernels a family compiles to (any text of
// familySources, or the variant list), not the rest of the package, and each family's hash
// is its own.
func TestSourceHashChanges(t *testing.T) {
	base := []string{"fn a() {}", "fn b() {}"}
	h0 := sourceHash("linear", []string{"v1", "v2"}, digestTexts(base))
	for name, texts := range map[string][]string{
		"edit":    {"fn a() {}", "fn b() { }"},
		"new":     {"fn a() {}", "fn b() {}", ""},
		"moved":   {"fn a() {}fn b() {}"},
		"swapped": {"fn b() {}", "fn a() {}"},
	} {
		if sourceHash("linear", []string{"v1", "v2"}, digestTexts(texts)) == h0 {
			t.Errorf("%s: hash unchanged", name)
		}
	}
	if sourceHash("linear", []string{"v1"}, digestTexts(base)) == h0 {
		t.Error("a variant list change left the hash unchanged")
	}
	seen := map[string]string{}
	for _, f := range Families() {
		srcs := familySources(f)
		if len(srcs) < len(familyVariants(f)) {
			t.Errorf("%s: %d sources for %d variants", f, len(srcs), len(familyVariants(f)))
		}
		for i, src := range srcs {
			if len(src) < 100 {
				t.Errorf("%s: source %d is %q", f, i, src)
			}
		}
		h := SourceHash(f)
		if g, dup := seen[h]; dup {
			t.Errorf("%s and %s share the hash %s", f, g, h)
		}
		seen[h] = f
		if SourceHash(f) != h {
			t.Errorf("%s: the hash changed between calls", f)
		}
	}
	// A flash variant's kernel is part of attention's hash: its source at head dim 128
	// appears among the family's.
	f := flashVariants(FamilyAttention)[0]
	if !slices.Contains(familySources(FamilyAttention), f.flashSource(128, true, false)) {
		t.Error("attention's sources lack its reference kernel at head dim 128")
	}
}
