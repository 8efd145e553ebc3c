package lora

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kleinbild/weights"
)

// Layers are a model's adaptable layers: module name → [out, in].
type Layers map[string][2]int

// LayersOf lists the linear layers among a checkpoint's tensors: every 2-D tensor named
// <module>.weight (e.g. from flux2.TensorSpecs).
func LayersOf(specs []weights.TensorSpec) Layers {
	l := Layers{}
	for _, s := range specs {
		if m, ok := strings.CutSuffix(s.Name, ".weight"); ok && len(s.Shape) == 2 {
			l[m] = [2]int{s.Shape[0], s.Shape[1]}
		}
	}
	return l
}

// FitError says why an adapter does not fit a model.
type FitError struct {
	Path       string
	Fits       string   // what the adapter seems made for ("" unknown)
	Mismatched []string // "module: adapter [o, i], model [o, i]"
	Missing    []string // modules the adapter changes that the model lacks
	Unmatched  []string // the file's keys that adapt nothing known
}

func (e *FitError) Error() string { return "lora: " + e.Problem() }

// Problem is the error's text without the package's words: the file, what it seems made
// for and what does not fit.
func (e *FitError) Problem() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Fits != "" {
		fmt.Fprintf(&b, " (made for %s)", e.Fits)
	}
	if len(e.Mismatched) > 0 {
		fmt.Fprintf(&b, " does not fit this model: %d layers differ in shape%s", len(e.Mismatched), list(e.Mismatched))
		return b.String()
	}
	b.WriteString(" matches the model only in part")
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, "; %d modules are not in the model%s", len(e.Missing), list(e.Missing))
	}
	if len(e.Unmatched) > 0 {
		fmt.Fprintf(&b, "; %d keys match nothing%s", len(e.Unmatched), list(e.Unmatched))
	}
	return b.String()
}

// list formats the first few entries of a list for a message.
func list(s []string) string {
	const n = 3
	out := ": " + strings.Join(s[:min(n, len(s))], "; ")
	if len(s) > n {
		out += fmt.Sprintf("; … %d more", len(s)-n)
	}
	return out
}

// Check verifies that every term targets a layer of the model with the term's shape; layers
// holds each component's layers (a component the caller leaves out counts as absent). Layers
// of other shapes always fail (the adapter is for another model); modules the model lacks
// and keys that match nothing fail unless partial is set. The error is a *FitError.
func (a *Adapter) Check(layers map[Component]Layers, partial bool) error {
	e := &FitError{Path: a.Path, Unmatched: a.Unmatched}
	for _, t := range a.Terms {
		shape, ok := layers[t.Component][t.Module]
		switch {
		case !ok:
			e.Missing = append(e.Missing, t.Component.String()+" "+t.Module)
		case shape != [2]int{t.Out, t.In}:
			e.Mismatched = append(e.Mismatched, fmt.Sprintf("%s: adapter [%d, %d], model [%d, %d]", t.Module, t.Out, t.In, shape[0], shape[1]))
		}
	}
	if len(e.Mismatched) > 0 || (!partial && len(e.Missing)+len(e.Unmatched) > 0) {
		e.Fits = a.Summary().Fits
		return e
	}
	return nil
}

// Summary describes an adapter for people (kleinbild info, the app's list).
type Summary struct {
	Format                Format
	Kinds                 []Kind // LoRA, LoKr (those present)
	Ranks                 []int  // distinct ranks, ascending (LoKr without a decomposed factor: none)
	Transformer, TextEnc  int    // adapted modules per component
	DoubleBlocks, Singles int    // highest block index + 1 adapted
	Hidden                int    // transformer width read from the shapes (0: unknown)
	Fits                  string // "FLUX.2-klein 4B", "FLUX.2-klein 9B", "FLUX.1", … ("" unknown)

	// From the file's metadata where present (modelspec.*, kohya's ss_*):
	Name      string   // modelspec.title, else ss_output_name
	BaseModel string   // modelspec.architecture, else ss_base_model_version
	Triggers  []string // modelspec.trigger_phrase (comma-separated), else the most frequent ss_tag_frequency tags
}

// hiddenFromOut lists the modules whose output (not input) size is the transformer width.
var hiddenFromOut = []string{"x_embedder", "context_embedder", "time_guidance_embed.timestep_embedder.linear_1",
	"time_guidance_embed.guidance_embedder.linear_1", "ff.linear_out", "ff_context.linear_out", "single_transformer_blocks.*.attn.to_out"}

// Key fragments only FLUX.1 adapters have (its per-block modulations and pooled-text input).
var flux1Only = []string{"img_mod", "txt_mod", "modulation.lin", "modulation_lin", "vector_in", "norm1.linear", "norm1_context", "norm1_linear"}

// Summary reads the adapter's shapes and names.
func (a *Adapter) Summary() Summary {
	s := Summary{Format: a.Format}
	for _, t := range a.Terms {
		if !slices.Contains(s.Kinds, t.Kind) {
			s.Kinds = append(s.Kinds, t.Kind)
		}
		if t.Rank > 0 && !slices.Contains(s.Ranks, t.Rank) {
			s.Ranks = append(s.Ranks, t.Rank)
		}
		if t.Component == TextEncoder {
			s.TextEnc++
			continue
		}
		s.Transformer++
		if n, ok := blockNumber(t.Module, "transformer_blocks."); ok {
			s.DoubleBlocks = max(s.DoubleBlocks, n+1)
		}
		if n, ok := blockNumber(t.Module, "single_transformer_blocks."); ok {
			s.Singles = max(s.Singles, n+1)
		}
		if s.Hidden == 0 {
			s.Hidden = t.In
			for _, m := range hiddenFromOut {
				if matchModule(m, t.Module) {
					s.Hidden = t.Out
				}
			}
		}
	}
	slices.Sort(s.Kinds)
	slices.Sort(s.Ranks)
	s.Name = firstOf(a.Metadata, "modelspec.title", "ss_output_name")
	s.BaseModel = firstOf(a.Metadata, "modelspec.architecture", "ss_base_model_version")
	s.Triggers = triggers(a.Metadata)
	switch s.Hidden {
	case 3072:
		s.Fits = "FLUX.2-klein 4B"
	case 4096:
		s.Fits = "FLUX.2-klein 9B"
	case 6144:
		s.Fits = "FLUX.2 [dev]"
	}
	for _, k := range a.Unmatched {
		for _, f := range flux1Only {
			if strings.Contains(k, f) {
				s.Fits = "FLUX.1"
			}
		}
	}
	return s
}

// matchModule reports whether module is pattern, where "*" stands for a block number, or ends
// in "."+pattern.
func matchModule(pattern, module string) bool {
	if strings.HasSuffix(module, "."+pattern) || module == pattern {
		return true
	}
	before, after, ok := strings.Cut(pattern, "*")
	if !ok {
		return false
	}
	rest, ok := strings.CutPrefix(module, before)
	if !ok {
		return false
	}
	num, tail, ok := strings.Cut(rest, ".")
	_, err := strconv.Atoi(num)
	return ok && err == nil && "."+tail == after
}

// blockNumber returns N of prefix+"N.…".
func blockNumber(module, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(module, prefix)
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	return n, err == nil
}

func firstOf(md map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(md[k]); v != "" {
			return v
		}
	}
	return ""
}

// maxTriggers caps the trigger words listed.
const maxTriggers = 5

// triggers reads modelspec.trigger_phrase, else the most frequent tags of kohya's
// ss_tag_frequency ({"dataset": {"tag": count}}).
func triggers(md map[string]string) []string {
	var out []string
	if p := md["modelspec.trigger_phrase"]; strings.TrimSpace(p) != "" {
		for _, t := range strings.Split(p, ",") {
			if t = strings.TrimSpace(t); t != "" && len(out) < maxTriggers {
				out = append(out, t)
			}
		}
		return out
	}
	var freq map[string]map[string]float64
	if json.Unmarshal([]byte(md["ss_tag_frequency"]), &freq) != nil {
		return nil
	}
	count := map[string]float64{}
	for _, tags := range freq {
		for t, n := range tags {
			count[strings.TrimSpace(t)] += n
		}
	}
	delete(count, "")
	tags := slices.Sorted(maps.Keys(count))
	slices.SortStableFunc(tags, func(a, b string) int { return cmp.Compare(count[b], count[a]) })
	return tags[:min(maxTriggers, len(tags))]
}
