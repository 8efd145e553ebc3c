package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"kleinbild/engine"
	"kleinbild/gpu/backends"
	"kleinbild/gpu/webgpu"
)

// runTune: kleinbild tune [--backend ID] [--force] [--quick] [--budget 60s] [-q] — tunes the
// WebGPU device (default: the best adapter, "webgpu"): times each kernel family's variants on
// the model's shapes, checks the winner against the reference variant, measures the device
// and the CPU backend on the same matrix product, caches it all for this adapter, driver and
// kernel sources, and prints the choices. Then, where the card has a Vulkan device, it times
// the Vulkan backend against WebGPU on the same work and records which is faster for the
// default rule (backends.CompareVulkan; lines added after the tuning's). Without --force,
// families whose cache entry is still valid are not timed again, nor a current comparison.
// --quick times tiny shapes and writes no cache (a smoke test on slow software adapters).
// --sizes names the image sizes whose Linear shapes are tuned one by one (--shape-budget caps
// each shape's time); their choices are listed after the tuning's other lines.
func runTune(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune", stderr)
	force := fs.Bool("force", false, "tune again even where the cache is valid")
	quick := fs.Bool("quick", false, "time tiny shapes and leave the cache alone (for tests on software adapters)")
	budget := fs.Duration("budget", time.Minute, "time budget of the whole tuning")
	quiet := fs.Bool("q", false, "quiet: print only the table and errors")
	backend := backendFlag(fs, " (a WebGPU device; default: webgpu, the best adapter)")
	sizes := fs.String("sizes", "", "comma-separated square image sizes whose Linear shapes are tuned one by one (default: 256,1024,1792 where the device is fast enough for the model's real shapes)")
	shapeBudget := fs.Duration("shape-budget", 0, "cap on each Linear shape's tuning (0: an equal share of what is left of --budget)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	if *budget <= 0 {
		return usageErr("--budget %v: want a positive duration", *budget)
	}
	if *shapeBudget < 0 {
		return usageErr("--shape-budget %v: want a duration of 0 or more", *shapeBudget)
	}
	shapeSizes, err := parseTuneSizes(*sizes)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(*backend)
	if id == "" {
		id = "webgpu"
	}
	b, err := openBackend(id)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, ok := b.(*webgpu.Backend); !ok {
		return usageErr("--backend %s: tuning is for WebGPU devices ('kleinbild devices' lists them)", id)
	}
	if !*quiet {
		printDevice(stderr, id, b)
	}
	ctx, stop := interruptContext()
	defer stop()
	opts := backends.TuneOptions{Force: *force, Budget: *budget, Sizes: shapeSizes, ShapeBudget: *shapeBudget}
	if *quick {
		opts.Workloads, opts.NoSave = webgpu.TinyWorkloads(), true
	}
	if !*quiet {
		opts.Progress = func(p webgpu.TuneProgress) {
			fmt.Fprintf(stderr, "Tuning %s: %s (%d of %d)\n", p.Family, p.Variant, p.Done+1, p.Total)
		}
	}
	res, err := backends.Tune(ctx, b, opts)
	if err != nil {
		return err
	}
	if err := writeTune(stdout, res); err != nil {
		return err
	}
	copts := backends.CompareOptions{Scale: res.Scale, Budget: *budget / 2, NoSave: *quick, Force: *force}
	if *quick {
		copts.Workloads = backends.TinyVulkanWorkloads()
	}
	cmp, err := backends.CompareVulkan(ctx, b.(*webgpu.Backend), copts)
	if err != nil {
		return err
	}
	if cmp.Record == nil {
		if !*quiet && cmp.Note != "" {
			fmt.Fprintf(stderr, "Note: Vulkan not compared: %s; the automatic default on this card stays WebGPU\n", cmp.Note)
		}
		return nil
	}
	return writeVulkanComparison(stdout, cmp)
}

// writeVulkanComparison prints the times of the Vulkan backend against WebGPU on the card
// (one line per workload) and the default rule's verdict.
func writeVulkanComparison(w io.Writer, c *backends.VulkanComparison) error {
	fmt.Fprintf(w, "Vulkan %s (%s, exact precision) against WebGPU on the same work:\n", c.VulkanID, c.VulkanName)
	for _, t := range c.Record.Work {
		fmt.Fprintf(w, "  %s: Vulkan %.3g ms, WebGPU %.3g ms\n", t.Name, t.Vulkan*1e3, t.WebGPU*1e3)
	}
	def := "WebGPU"
	if c.Faster {
		def = c.VulkanID
	}
	saved := ""
	switch {
	case c.Cached:
		saved = " (from the cache)"
	case !c.Saved:
		saved = " (not recorded: the default rule does not see it)"
	}
	_, err := fmt.Fprintf(w, "Automatic default on this card: %s (%s)%s\n", def, c.Why, saved)
	return err
}

// writeTune prints the choices of res: one tab-aligned line per family (variant, how it was
// chosen, the times of the variants timed, the chosen variant's rate on the shape timed;
// "linear@large" is Linear's choice for 3072 rows or more, timed on 1024²'s 4608 rows;
// "linear@deep" its choice for fewer rows of depth 6144 or more, timed on 256²'s 768×9216→3072),
// then the measured rates and the default rule.
func writeTune(w io.Writer, res *webgpu.TuneResult) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tVARIANT\tCHOSEN BY\tTIMES\tRATE")
	for _, f := range res.Families {
		how := "tuned"
		switch {
		case f.Forced:
			how = "forced"
		case f.Cached:
			how = "cache"
		case len(f.Seconds) == 0:
			how = "only variant"
		}
		rate := "-"
		if f.GFLOPS > 0 {
			rate = fmt.Sprintf("%.4g GFLOP/s on %s", f.GFLOPS, f.Shape)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Family, f.Variant, how, timesField(f.Seconds), rate)
		if f.Note != "" {
			fmt.Fprintf(tw, "\t\t\t(%s)\n", f.Note)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	scaled := ""
	if res.Scale > 1 {
		scaled = fmt.Sprintf(" (the model's shapes divided by %d: a slow device)", res.Scale)
	}
	fmt.Fprintf(w, "Device: %s GFLOP/s on %s%s\n", rateField(res.GPUGFLOPS), res.Shape, scaled)
	if res.CPUGFLOPS > 0 {
		def := "the CPU (it is faster)"
		if res.GPUGFLOPS > res.CPUGFLOPS {
			def = "this GPU"
		}
		fmt.Fprintf(w, "CPU (%s): %s GFLOP/s on the same product; automatic default: %s\n", res.CPUName, rateField(res.CPUGFLOPS), def)
	}
	_, err := fmt.Fprintf(w, "Took %.1f s%s\n", res.Elapsed.Seconds(), map[bool]string{true: " (all from the cache)", false: ""}[res.FromCache])
	if err != nil || len(res.Shapes) == 0 {
		return err
	}
	return writeTuneShapes(w, res.Shapes)
}

// writeTuneShapes prints Linear's choice per shape: one tab-aligned line per shape (rows,
// depth and outputs, the rows its record holds for, the variant, how it was chosen, the
// chosen variant's rate), a skipped shape's reason in place of its rate.
func writeTuneShapes(w io.Writer, shapes []webgpu.ShapeTuning) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LINEAR SHAPE\tROWS\tVARIANT\tCHOSEN BY\tRATE")
	for _, s := range shapes {
		how, v, rate := "tuned", s.Variant, "-"
		switch {
		case s.Cached:
			how = "cache"
		case v == "":
			how, v = "not timed", "-"
		}
		if s.GFLOPS > 0 {
			rate = fmt.Sprintf("%.4g GFLOP/s", s.GFLOPS)
		}
		switch {
		case s.Note != "" && rate == "-":
			rate = s.Note
		case s.Note != "":
			rate += " (" + s.Note + ")"
		}
		fmt.Fprintf(tw, "%s %d×%d→%d\t≤ %d\t%s\t%s\t%s\n", s.Shape.Name, s.Shape.M, s.Shape.K, s.Shape.N, s.Bucket, v, how, rate)
	}
	return tw.Flush()
}

// parseTuneSizes parses --sizes ("": nil, the default), image sizes as generate takes them.
func parseTuneSizes(sizes string) ([]int, error) {
	if strings.TrimSpace(sizes) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || engine.CheckEngineSize(n) != nil || n > engine.MaxSidePx {
			return nil, usageErr("--sizes %q: want comma-separated multiples of %d up to %d", sizes, engine.SizeMultiple, engine.MaxSidePx)
		}
		out = append(out, n)
	}
	return out, nil
}

// timesField lists variant times as "name 12.3 ms", fastest first, "-" when none.
func timesField(secs map[string]float64) string {
	if len(secs) == 0 {
		return "-"
	}
	names := make([]string, 0, len(secs))
	for n := range secs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return secs[names[i]] < secs[names[j]] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %.3g ms", n, secs[n]*1e3)
	}
	return strings.Join(parts, ", ")
}
