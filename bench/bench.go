// Package bench times end-to-end FLUX.2-klein generations through the engine (engine.Open,
// Model.Generate, PNG saving) and reports every phase: model open, tokenizer, prompt
// encoding, each denoising step, VAE decoding, saving, with the achieved GFLOP/s of each
// compute phase (from the cost model in flops.go), the matrix-product peak of the same device
// measured in the same process, peak memory, and sanity statistics of the activations. It is
// meant for the full-size random-weight models of package randmodel; it prints nothing
// itself (see Report.WriteTable, and Options.Log for progress lines).
package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// Options configure a benchmark.
type Options struct {
	ModelDir string
	// Source, when set, is the model to run (e.g. files in place of ModelDir's components;
	// engine.OpenModelSource); ModelDir then only names it in the report.
	Source engine.Source
	// Sizes are the square image sizes (pixels) to generate, in order. The first size runs
	// three times: with a new prompt, with a second new prompt (the encoder is resident by
	// then), then with the first prompt again (the embedding cache makes its encode ~free);
	// later sizes reuse the cached prompt.
	Sizes []int
	// Steps per generation (0: the variant's default).
	Steps  int
	Prompt string
	Seed   uint64
	// Backend to run on (nil: backends.Default()).
	Backend gpu.Backend
	// PeakReps is the number of timed repetitions of each GEMM peak measurement (after one
	// warm-up); negative skips the measurement, 0 means 3.
	PeakReps int
	// Adapters are applied to every generation (Request.Adapters).
	Adapters lora.Stack
	// Software is recorded in the saved PNGs' metadata.
	Software string
	// Log, if non-nil, receives one line per progress event worth showing.
	Log func(format string, args ...any)
	// Single runs only the first size, once, with a new prompt (one generation: the end of
	// `bench --kernels`).
	Single bool
	// Profile times every dispatch on the GPU (profile.go): each run records the GPU time
	// per op of its steps and decoding. It needs a backend with timestamp queries.
	Profile bool
}

// CacheDir is where the bench command keeps its random-weight models by default:
// <user cache dir>/kleinbild/bench ($XDG_CACHE_HOME or ~/.cache on Linux).
func CacheDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	return filepath.Join(c, "kleinbild", "bench"), nil
}

// DefaultPrompt is the prompt generated when Options.Prompt is empty.
const DefaultPrompt = "A red cube on a blue table, studio lighting, 35mm photo"

// Report is the outcome of a benchmark; it marshals to the JSON the bench command writes.
type Report struct {
	Started time.Time `json:"started"`
	Machine Machine   `json:"machine"`
	Model   ModelInfo `json:"model"`
	// Peak is measured before the generations, PeakEnd after them: on a shared machine the
	// load can change in between.
	Peak    *GEMMPeak `json:"gemm_peak,omitempty"`
	PeakEnd *GEMMPeak `json:"gemm_peak_end,omitempty"`
	// Creation is set by callers that wrote the random model just before (see randmodel).
	Creation *Creation `json:"model_creation,omitempty"`
	// Kernels is set by callers that measured the kernels first (RunKernels).
	Kernels *KernelReport `json:"kernels,omitempty"`
	// OpenS is engine.Open (config checks, mapping and validating transformer and VAE).
	OpenS float64 `json:"open_s"`
	// OpenUpload is what the open copied to the device (nil: nothing).
	OpenUpload *Upload `json:"open_upload,omitempty"`
	// TokenizerLoadS is loading tokenizer.json; TokenizeS one chat-template tokenization.
	TokenizerLoadS float64      `json:"tokenizer_load_s"`
	TokenizeS      float64      `json:"tokenize_s"`
	Runs           []Generation `json:"runs"`
	// LoadAvgEnd is the load average after the last run (Machine.LoadAvg is before the first).
	LoadAvgEnd []float64 `json:"load_avg_end,omitempty"`
	// PeakRSS is the process's VmHWM over the whole benchmark; PeakAnon the largest sampled
	// RssAnon (private anonymous memory, i.e. without the mapped weight files).
	PeakRSS  uint64 `json:"peak_rss_bytes"`
	PeakAnon uint64 `json:"peak_anon_bytes"`
	// Backend is the backend's own memory accounting (gpu.Backend.Memory) over the whole
	// benchmark: tensors it allocated (device memory on a GPU) at peak, and the weight bytes
	// it views in place (CPU backends) or holds (copied weights count in the peak).
	BackendPeak   int64 `json:"backend_peak_bytes"`
	BackendViewed int64 `json:"backend_viewed_bytes"`
}

// Creation describes how the benchmarked random model was written.
type Creation struct {
	Seconds     float64 `json:"seconds"`
	WeightBytes int64   `json:"weight_bytes"`
	MBPerSecond float64 `json:"mb_per_s"`
}

// Machine describes where the benchmark ran.
type Machine struct {
	CPU        string `json:"cpu,omitempty"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Backend    string `json:"backend"`
	// Device and DeviceKind describe what the backend runs on (gpu.Backend.Info).
	Device     string    `json:"device,omitempty"`
	DeviceKind string    `json:"device_kind,omitempty"`
	GOOS       string    `json:"goos"`
	GOARCH     string    `json:"goarch"`
	LoadAvg    []float64 `json:"load_avg,omitempty"`
}

// ModelInfo describes the benchmarked model.
type ModelInfo struct {
	Dir               string `json:"dir"`
	Variant           string `json:"variant"`
	WeightBytes       int64  `json:"weight_bytes"`
	EncoderParams     int64  `json:"encoder_params"`
	TransformerParams int64  `json:"transformer_params"`
	VAEParams         int64  `json:"vae_params"`
}

// Phase is one timed piece of a run. GFLOP is the cost-model work (0 for phases that are not
// compute), GFLOPS the achieved rate.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	GFLOP   float64 `json:"gflop,omitempty"`
	GFLOPS  float64 `json:"gflops,omitempty"`
	// MajorFaults counts the pages read from disk during the phase (mapped weights that were
	// not in the page cache): a slow phase with many is I/O-bound, not compute-bound.
	MajorFaults uint64 `json:"major_faults"`
	// Upload is what the phase copied to the device (nil: nothing; upload.go).
	Upload *Upload `json:"upload,omitempty"`
}

// Stat summarises a tensor the generation produced: root mean square, largest magnitude and
// the number of NaN/Inf values.
type Stat struct {
	RMS       float64 `json:"rms"`
	MaxAbs    float64 `json:"max_abs"`
	NonFinite int     `json:"non_finite"`
}

// Generation is one timed generation of a benchmark.
type Generation struct {
	Label        string `json:"label"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Steps        int    `json:"steps"`
	ImageTokens  int    `json:"image_tokens"`
	PromptCached bool   `json:"prompt_cached"`
	// Phases in order: prepare (request checks), encode, step 1..n, decode, save, and total.
	Phases []Phase `json:"phases"`
	// EncoderLayers is the number of encoder layers run (0 when the prompt was cached).
	EncoderLayers int `json:"encoder_layers"`
	// PeakRSS is VmHWM during this run (since a reset before it when the kernel allows,
	// else since the process started: PeakRSSSinceStart); PeakAnon the largest sampled RssAnon.
	PeakRSS           uint64 `json:"peak_rss_bytes"`
	PeakRSSSinceStart bool   `json:"peak_rss_since_start,omitempty"`
	PeakAnon          uint64 `json:"peak_anon_bytes"`
	// BackendPeak is the most memory the backend held in tensors during this run
	// (gpu.Backend.Memory after ResetPeak: activations and, on a GPU, the weights).
	BackendPeak int64 `json:"backend_peak_bytes"`
	// Stats of prompt_embeds, latents_init, latents_step<i>, latents_final and image.
	Stats map[string]Stat `json:"stats"`
	// Profile is the GPU time per op (Options.Profile; nil otherwise).
	Profile *RunProfile `json:"profile,omitempty"`
}

// Phase returns the named phase of the generation (zero if absent).
func (r *Generation) Phase(name string) Phase {
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	return Phase{}
}

// Run opens the model, measures the GEMM peak and runs the generations.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := validateSizes(opts.Sizes); err != nil {
		return nil, err
	}
	b := opts.Backend
	if b == nil {
		b = backends.Default()
		defer b.Close()
	}
	prompt := opts.Prompt
	if prompt == "" {
		prompt = DefaultPrompt
	}
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}

	rep := newReport(b)
	mem := startSampler(100 * time.Millisecond)
	defer func() {
		if mem != nil {
			mem.finish()
		}
	}()

	// Costs and sizes from the configs.
	teCfg, trCfg, vaeCfg, err := configs(opts)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rep.Model = modelInfo(opts.ModelDir, teCfg, trCfg, vaeCfg)
	if err := checkSizes(b, opts.Sizes, estimate.Model{Name: "bench", Transformer: trCfg, Encoder: teCfg, VAE: vaeCfg}); err != nil {
		return nil, err
	}

	if rep.Peak, err = gemmPeak(ctx, b, opts.PeakReps, logf); err != nil {
		return nil, err
	}
	b.ResetPeak() // the GEMM peak's test tensors are not the model's
	prof, err := startProfile(b, opts.Profile)
	if err != nil {
		return nil, err
	}
	if prof != nil {
		defer prof.StopProfile()
	}

	t, up := time.Now(), uploadsNow(b)
	m, err := openModel(opts, b)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer m.Close()
	rep.OpenS = time.Since(t).Seconds()
	rep.OpenUpload = uploadsNow(b).since(up)
	rep.Model.Variant = m.Info().Variant()
	rep.Model.WeightBytes = m.Info().WeightBytes
	logf("Opened %s (%s) in %.2f s", opts.ModelDir, rep.Model.Variant, rep.OpenS)

	ids, err := timeTokenizer(m, prompt, rep)
	if err != nil {
		return nil, err
	}
	if len(ids) != tokenizer.MaxLength {
		return nil, fmt.Errorf("bench: tokenizer gave %d ids, want %d", len(ids), tokenizer.MaxLength)
	}
	costs := costModel{te: teCfg, tr: trCfg, vae: vaeCfg, txt: len(ids)}
	tmp, err := os.MkdirTemp("", "kleinbild-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)

	plans := runPlans(opts.Sizes, opts.Single)
	var rss rssPeak
	rep.BackendPeak = b.Memory().Peak // open and tokenization
	rep.BackendViewed = b.Memory().Viewed
	if err := runGenerations(ctx, m, b, opts, prompt, plans, costs, tmp, rep, &rss, prof, logf); err != nil {
		return rep, err
	}
	if rep.PeakEnd, err = gemmPeak(ctx, b, opts.PeakReps, logf); err != nil {
		return rep, err
	}
	rep.LoadAvgEnd = loadAverage()
	rep.PeakAnon, _ = mem.finish()
	mem = nil
	rss.fold()
	rep.PeakRSS = rss.max
	return rep, nil
}

// newReport starts a report on b, stamped now, with the machine's description.
func newReport(b gpu.Backend) *Report {
	rep := &Report{Started: time.Now().UTC().Truncate(time.Second)}
	rep.Machine = Machine{CPU: cpuModel(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Backend: b.Name(), Device: b.Info().Name, DeviceKind: string(b.Info().Kind), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, LoadAvg: loadAverage()}
	return rep
}

// rssPeak accumulates the process's peak resident size (VmHWM) across resets.
type rssPeak struct{ max uint64 }

// fold takes the current VmHWM into the peak (runOne resets VmHWM, so fold before each run).
func (p *rssPeak) fold() {
	if st, ok := readStatus(); ok {
		p.max = max(p.max, st.VmHWM)
	}
}

// runGenerations runs the planned generations on m, saving their PNGs in dir and appending
// them (with the backend's memory peaks) to rep.
func runGenerations(ctx context.Context, m *engine.Model, b gpu.Backend, opts Options, prompt string, plans []runPlan,
	costs costModel, dir string, rep *Report, rss *rssPeak, prof profiler, logf func(string, ...any)) error {
	for i, p := range plans {
		rss.fold()
		pr := prompt
		if p.second {
			pr = secondPrompt(prompt)
		}
		req := engine.Request{Settings: engine.Settings{Prompt: pr, Width: p.size, Height: p.size, Steps: opts.Steps, Seed: opts.Seed}, Adapters: opts.Adapters}
		var pt *profileTaker
		if prof != nil {
			pt = &profileTaker{p: prof}
		}
		run, err := runOne(ctx, m, b, req, p.label, costs, filepath.Join(dir, fmt.Sprintf("run%d.png", i)), opts.Software, pt, logf)
		if err != nil {
			return fmt.Errorf("bench: %s: %w", p.label, err)
		}
		rep.Runs = append(rep.Runs, run)
		rep.BackendPeak = max(rep.BackendPeak, run.BackendPeak)
		rep.BackendViewed = max(rep.BackendViewed, b.Memory().Viewed)
		logf("%s: total %.1f s", p.label, run.Phase("total").Seconds)
	}
	return nil
}

// gemmPeak measures the GEMM peak of b with reps timed repetitions (0: 3); negative reps
// skips it and returns nil.
func gemmPeak(ctx context.Context, b gpu.Backend, reps int, logf func(string, ...any)) (*GEMMPeak, error) {
	if reps < 0 {
		return nil, nil
	}
	if reps == 0 {
		reps = 3
	}
	logf("Measuring the GEMM peak (768×3072 · 3072×9216, sgemm and bf16 Linear)")
	p, err := measurePeak(ctx, b, reps)
	if err != nil {
		return nil, fmt.Errorf("bench: GEMM peak: %w", err)
	}
	debug.FreeOSMemory() // hand the test matrices back so they do not count in the runs' RssAnon
	logf("GEMM peak: sgemm %.1f GFLOP/s, bf16 Linear %.1f GFLOP/s", p.SgemmGFLOPS, p.LinearBF16GFLOPS)
	return &p, nil
}

// openModel opens opts.Source when set, else opts.ModelDir, on b without a disk cache (so
// that the first encode is real).
func openModel(opts Options, b gpu.Backend) (*engine.Model, error) {
	if opts.Source != nil {
		return engine.OpenSource(opts.Source, b, engine.Options{})
	}
	return engine.Open(opts.ModelDir, b, engine.Options{})
}

// timeTokenizer tokenizes prompt twice, recording in rep the tokenizer's load time (the
// first call's extra time) and one tokenization's time; it returns the ids.
func timeTokenizer(m *engine.Model, prompt string, rep *Report) ([]int, error) {
	t := time.Now()
	if _, _, err := m.Tokens(prompt); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	first := time.Since(t)
	t = time.Now()
	ids, _, err := m.Tokens(prompt)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rep.TokenizeS = time.Since(t).Seconds()
	rep.TokenizerLoadS = max(first.Seconds()-rep.TokenizeS, 0)
	return ids, nil
}

// runPlan is one generation of a benchmark: its image size, its label in the report and
// whether it runs secondPrompt.
type runPlan struct {
	size   int
	label  string
	second bool
}

// runPlans lists the generations for sizes: the first size with a new prompt, a second new
// prompt (the encoder is then already resident: what a user pays per new prompt) and the same
// prompt again, later sizes with the same prompt; single keeps only the first.
func runPlans(sizes []int, single bool) []runPlan {
	var plans []runPlan
	for i, s := range sizes {
		if single {
			plans = append(plans, runPlan{s, fmt.Sprintf("%d² new prompt", s), false})
			break
		}
		if i == 0 {
			plans = append(plans, runPlan{s, fmt.Sprintf("%d² new prompt", s), false},
				runPlan{s, fmt.Sprintf("%d² second new prompt", s), true},
				runPlan{s, fmt.Sprintf("%d² same prompt", s), false})
		} else {
			plans = append(plans, runPlan{s, fmt.Sprintf("%d² same prompt", s), false})
		}
	}
	return plans
}

// secondPrompt is the prompt of the second new-prompt run: another text, so that its
// embedding is not cached.
func secondPrompt(prompt string) string { return prompt + ", seen from above" }

// runOne runs one generation and saves its PNG, timing every phase.
func runOne(ctx context.Context, m *engine.Model, b gpu.Backend, req engine.Request, label string, costs costModel, png, software string,
	pt *profileTaker, logf func(string, ...any)) (Generation, error) {
	pt.take() // what ran before this run
	var rp RunProfile
	resetOK := resetPeakRSS()
	b.ResetPeak()
	mem := startSampler(100 * time.Millisecond)
	stats := map[string]Stat{}
	req.Dump = func(name string, _ []int, data []float32) error {
		stats[name] = statOf(data)
		return nil
	}
	faults := func() uint64 { n, _ := majorFaults(); return n }
	var (
		stepEnd      = map[int]time.Duration{}
		stepFaults   = map[int]uint64{}
		encLayers    int
		encFaults    = faults() // at the end of encoding (still the start when cached)
		lastProgress = time.Now()
		encUp        = uploadsNow(b)
		stepUp       = map[int]uploadMark{}
	)
	startUp := encUp
	startFaults := encFaults
	progress := func(p engine.Progress) {
		switch {
		case p.Phase == engine.PhaseEncoding && p.Blocks > 0:
			encLayers = max(encLayers, p.Block)
			if p.Block == p.Blocks {
				encFaults, encUp = faults(), uploadsNow(b)
				pt.take() // the encoder's work is not the steps'
			}
		case p.Phase == engine.PhaseDenoise && p.Block == p.Blocks && p.Preview != nil:
			stepEnd[p.Step] = p.Elapsed
			stepFaults[p.Step], stepUp[p.Step] = faults(), uploadsNow(b)
			if p.Step == p.Steps {
				rp.Step, rp.Steps = pt.take(), p.Steps
			}
			logf("%s: step %d/%d done at %.1f s", label, p.Step, p.Steps, p.Elapsed.Seconds())
		}
		if now := time.Now(); now.Sub(lastProgress) > 15*time.Second {
			lastProgress = now
			switch p.Phase {
			case engine.PhaseDenoise:
				logf("%s: step %d/%d, block %d/%d, %.0f s", label, p.Step, p.Steps, p.Block, p.Blocks, p.Elapsed.Seconds())
			default:
				logf("%s: %s, %d/%d, %.0f s", label, p.Phase, p.Block, p.Blocks, p.Elapsed.Seconds())
			}
		}
	}
	start := time.Now()
	res, err := m.Generate(ctx, req, progress)
	gen := time.Since(start)
	rp.Decode = pt.take()
	decFaults, decUp := faults(), uploadsNow(b)
	if err == nil && pt != nil {
		err = pt.err
	}
	if err != nil {
		mem.finish()
		return Generation{}, err
	}
	t := time.Now()
	meta, err := engine.Metadata(m.Info(), req, nil, res, software, gen)
	if err == nil {
		err = engine.SavePNG(png, res.Image, meta)
	}
	save := time.Since(t)
	if err != nil {
		mem.finish()
		return Generation{}, err
	}
	total := time.Since(start)
	saveFaults := faults()
	anon, _ := mem.finish()

	run := Generation{Label: label, Width: res.WidthPx, Height: res.HeightPx, Steps: res.Steps,
		ImageTokens: res.WidthPx / 16 * res.HeightPx / 16, PeakAnon: anon, Stats: stats,
		EncoderLayers: encLayers, PromptCached: encLayers == 0, PeakRSSSinceStart: !resetOK}
	if st, ok := readStatus(); ok {
		run.PeakRSS = st.VmHWM
	}
	run.BackendPeak = b.Memory().Peak
	if pt != nil {
		run.Profile = &rp
	}
	secs := func(d time.Duration) float64 { return d.Seconds() }
	phase := func(name string, d time.Duration, flop float64, faults uint64) Phase {
		p := Phase{Name: name, Seconds: secs(d), MajorFaults: faults}
		if flop > 0 {
			p.GFLOP = flop / 1e9
			if d > 0 {
				p.GFLOPS = flop / 1e9 / d.Seconds()
			}
		}
		return p
	}
	tm := res.Timings
	encFLOP := 0.0
	if !run.PromptCached {
		encFLOP = costs.encode()
	}
	// Page faults are attributed at the progress reports nearest to the phase boundaries (the
	// prepare phase's go to encode).
	run.Phases = append(run.Phases,
		phase("prepare", tm[engine.PhaseLoading], 0, 0),
		phase("encode", tm[engine.PhaseEncoding], encFLOP, encFaults-startFaults))
	run.Phases[1].Upload = encUp.since(startUp)
	prevUp := encUp
	stepFLOP := costs.step(run.ImageTokens)
	prev, prevFaults := tm[engine.PhaseLoading]+tm[engine.PhaseEncoding]+tm[engine.PhaseRefs], encFaults
	for s := 1; s <= res.Steps; s++ {
		end, ok := stepEnd[s]
		if !ok {
			return Generation{}, fmt.Errorf("no progress report for the end of step %d", s)
		}
		run.Phases = append(run.Phases, phase(fmt.Sprintf("step %d", s), end-prev, stepFLOP, stepFaults[s]-prevFaults))
		run.Phases[len(run.Phases)-1].Upload = stepUp[s].since(prevUp)
		prev, prevFaults, prevUp = end, stepFaults[s], stepUp[s]
	}
	sf := costs.vae.ScaleFactor()
	decFLOP := costs.decode(res.HeightPx/sf, res.WidthPx/sf)
	run.Phases = append(run.Phases,
		phase("decode", tm[engine.PhaseDecoding], decFLOP, decFaults-prevFaults),
		phase("save", save, 0, saveFaults-decFaults),
		phase("total", total, encFLOP+float64(res.Steps)*stepFLOP+decFLOP, saveFaults-startFaults))
	run.Phases[len(run.Phases)-3].Upload = decUp.since(prevUp)
	run.Phases[len(run.Phases)-1].Upload = decUp.since(startUp)
	return run, nil
}

// statOf summarises values.
func statOf(v []float32) Stat {
	var s Stat
	var sum float64
	n := 0
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			s.NonFinite++
			continue
		}
		sum += f * f
		s.MaxAbs = max(s.MaxAbs, math.Abs(f))
		n++
	}
	if n > 0 {
		s.RMS = math.Sqrt(sum / float64(n))
	}
	return s
}

// modelInfo counts parameters from the configs.
// configs reads the components' configs from opts.Source, else from opts.ModelDir.
func configs(opts Options) (qwen3.Config, flux2.Config, vae.Config, error) {
	if src := opts.Source; src != nil {
		te, err := src.EncoderConfig()
		if err != nil {
			return te, flux2.Config{}, vae.Config{}, err
		}
		tr, err := src.TransformerConfig()
		if err != nil {
			return te, tr, vae.Config{}, err
		}
		v, err := src.VAEConfig()
		return te, tr, v, err
	}
	te, err := qwen3.LoadConfig(filepath.Join(opts.ModelDir, "text_encoder", "config.json"))
	if err != nil {
		return te, flux2.Config{}, vae.Config{}, err
	}
	tr, err := flux2.LoadConfig(filepath.Join(opts.ModelDir, "transformer", "config.json"))
	if err != nil {
		return te, tr, vae.Config{}, err
	}
	v, err := vae.LoadConfig(filepath.Join(opts.ModelDir, "vae", "config.json"))
	return te, tr, v, err
}

func modelInfo(dir string, te qwen3.Config, tr flux2.Config, v vae.Config) ModelInfo {
	var enc, trans, va [][]int
	for _, s := range qwen3.TensorSpecs(te) {
		enc = append(enc, s.Shape)
	}
	for _, s := range flux2.TensorSpecs(tr) {
		trans = append(trans, s.Shape)
	}
	for _, s := range vae.TensorSpecs(v) {
		va = append(va, s.Shape)
	}
	return ModelInfo{Dir: dir, EncoderParams: paramCount(enc), TransformerParams: paramCount(trans), VAEParams: paramCount(va)}
}
