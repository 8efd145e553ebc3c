package bench

import (
	"fmt"
	"io"
	"strings"

	"kleinbild/gpu"
)

// WriteTable prints the report as a table: one column per run, one row per phase (seconds
// and GFLOP/s), then memory and sanity rows.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	gb := func(n uint64) string { return fmt.Sprintf("%.2f GB", float64(n)/1e9) }
	mb := func(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
	fmt.Fprintf(&b, "Model:    %s (%s, %.2f GB of weights; encoder %.2fB, transformer %.2fB, VAE %.0fM parameters)\n",
		r.Model.Dir, r.Model.Variant, float64(r.Model.WeightBytes)/1e9, float64(r.Model.EncoderParams)/1e9,
		float64(r.Model.TransformerParams)/1e9, float64(r.Model.VAEParams)/1e6)
	backend := r.Machine.Backend
	if m := r.Machine; m.DeviceKind != "" && m.DeviceKind != string(gpu.KindCPU) {
		backend += fmt.Sprintf(" on %s (%s)", m.Device, m.DeviceKind)
	}
	fmt.Fprintf(&b, "Machine:  %s, %d CPUs (GOMAXPROCS %d), backend %s, load average %s before, %s after\n",
		orUnknown(r.Machine.CPU), r.Machine.CPUs, r.Machine.GOMAXPROCS, backend, loads(r.Machine.LoadAvg), loads(r.LoadAvgEnd))
	for _, pk := range []struct {
		when string
		p    *GEMMPeak
	}{{"before", r.Peak}, {"after", r.PeakEnd}} {
		if p := pk.p; p != nil {
			fmt.Fprintf(&b, "GEMM peak %-6s (%d×%d · %d×%d): sgemm %.1f GFLOP/s, bf16 Linear %.1f GFLOP/s\n",
				pk.when, p.M, p.K, p.K, p.N, p.SgemmGFLOPS, p.LinearBF16GFLOPS)
		}
	}
	if c := r.Creation; c != nil {
		fmt.Fprintf(&b, "Random model written in %.1f s: %.2f GB at %.0f MB/s\n", c.Seconds, float64(c.WeightBytes)/1e9, c.MBPerSecond)
	}
	fmt.Fprintf(&b, "Open (load) %.2f s, tokenizer load %.2f s, tokenize %.3f ms\n\n", r.OpenS, r.TokenizerLoadS, 1000*r.TokenizeS)

	// Rows: the union of phase names in first-seen order.
	var names []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, p := range run.Phases {
			if !seen[p.Name] {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	const colW = 28
	fmt.Fprintf(&b, "%-22s", "")
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "| %-*s", colW, run.Label)
	}
	fmt.Fprintf(&b, "\n%-22s", "phase")
	for range r.Runs {
		fmt.Fprintf(&b, "| %-*s", colW, "        s GFLOP/s  majflt")
	}
	b.WriteString("\n" + strings.Repeat("-", 22) + strings.Repeat("+"+strings.Repeat("-", colW+1), len(r.Runs)) + "\n")
	row := func(name string, cell func(run *Generation) string) {
		fmt.Fprintf(&b, "%-22s", name)
		for i := range r.Runs {
			fmt.Fprintf(&b, "| %-*s", colW, cell(&r.Runs[i]))
		}
		b.WriteByte('\n')
	}
	for _, name := range names {
		row(name, func(run *Generation) string {
			for _, p := range run.Phases {
				if p.Name != name {
					continue
				}
				gf := ""
				if p.GFLOPS > 0 {
					gf = fmt.Sprintf("%.1f", p.GFLOPS)
				}
				return fmt.Sprintf("%9.3f %6s %8d", p.Seconds, gf, p.MajorFaults)
			}
			return ""
		})
	}
	uploadRows(r, row)
	row("peak RSS (VmHWM)", func(run *Generation) string {
		s := gb(run.PeakRSS)
		if run.PeakRSSSinceStart {
			s += " (since start)"
		}
		return s
	})
	row("peak RssAnon (private)", func(run *Generation) string { return gb(run.PeakAnon) })
	row("peak backend tensors", func(run *Generation) string { return mb(run.BackendPeak) })
	for _, k := range []string{"prompt_embeds", "latents_init", "latents_final", "image"} {
		row(k+" rms/max", func(run *Generation) string {
			s, ok := run.Stats[k]
			if !ok {
				return ""
			}
			out := fmt.Sprintf("%.3g / %.3g", s.RMS, s.MaxAbs)
			if s.NonFinite > 0 {
				out += fmt.Sprintf(" (%d NaN/Inf!)", s.NonFinite)
			}
			return out
		})
	}
	fmt.Fprintf(&b, "\nWhole benchmark: peak RSS %s (includes mapped weight pages), peak RssAnon %s; backend %s: peak %s in tensors, %s of weights viewed in place\n",
		gb(r.PeakRSS), gb(r.PeakAnon), r.Machine.Backend, mb(r.BackendPeak), mb(r.BackendViewed))
	b.WriteString("GFLOP/s from the cost model (matrix products + attention); no encode work when the prompt embedding was cached.\n")
	b.WriteString("majflt: major page faults (pages read from disk, e.g. weights not in the page cache).\n")
	if r.OpenUpload != nil {
		fmt.Fprintf(&b, "Weights copied to the device at open: %s; upload rows: weights copied per phase (the transformer's reload after a new prompt's encoding falls in step 1).\n", r.OpenUpload)
	}
	r.writeProfiles(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func loads(l []float64) string {
	if len(l) == 0 {
		return "?"
	}
	parts := make([]string, len(l))
	for i, v := range l {
		parts[i] = fmt.Sprintf("%.2f", v)
	}
	return strings.Join(parts, " ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}
