package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kleinbild/engine/sched"
	"kleinbild/internal/safefile"
)

// ModelInfo describes a model folder without loading it.
type ModelInfo struct {
	Dir string
	// Name is "klein-4B", "klein-9B" or "custom" (from the transformer width).
	Name string
	// Distilled is true for the 4-step distilled models (model_index.json "is_distilled").
	Distilled bool
	// Problems are the required files that are absent or cannot be read.
	Problems []Problem
	// WeightBytes is the size of all weight files (what gets memory-mapped), or for
	// components read from single files what they take once loaded (Source.WeightBytes).
	WeightBytes int64
	// DefaultSteps and DefaultGuidance follow the variant.
	DefaultSteps    int
	DefaultGuidance float64
	// Scheduler is scheduler/scheduler_config.json, checked (the zero Config, the FLUX.2
	// default, when the file is missing; Problems then lists it, as diffusers needs it too).
	Scheduler sched.Config
	// Files describes the components read from single files (GGUF, BFL, ComfyUI), in
	// WeightComponents order; empty for a diffusers folder.
	Files []PartFile
	// Notes are facts about the model a user should know (a variant assumed, a choice made
	// among several files), one sentence each.
	Notes []string
}

// Variant is a human-readable variant name, e.g. "klein-4B distilled".
func (m ModelInfo) Variant() string {
	if m.Distilled {
		return m.Name + " distilled"
	}
	return m.Name + " base"
}

// OK reports whether nothing is missing.
func (m ModelInfo) OK() bool { return len(m.Problems) == 0 }

// schedulerConfig is the scheduler's settings, relative to the model folder.
const schedulerConfig = "scheduler/scheduler_config.json"

// RequiredFiles are the files every diffusers model folder must have (paths relative to
// it, with slashes): what Inspect checks and what a download must fetch. The weights are
// checked separately: each is one file or shards with an index.
func RequiredFiles() []string { return slices.Clone(requiredFiles) }

// requiredFiles is RequiredFiles.
var requiredFiles = []string{
	"model_index.json",
	schedulerConfig,
	"text_encoder/config.json",
	"tokenizer/tokenizer.json",
	"transformer/config.json",
	"vae/config.json",
}

// weightFiles names each component's single weight file; "NAME.index.json" with its shards
// may stand in for it, as Hugging Face writes large checkpoints.
var weightFiles = []struct{ comp, file string }{
	{"text_encoder", "model.safetensors"},
	{"transformer", "diffusion_pytorch_model.safetensors"},
	{"vae", "diffusion_pytorch_model.safetensors"},
}

// inspectWeights adds the size of comp's weights to info, or what is missing: a single
// file, or an index plus every shard it names.
func inspectWeights(info *ModelInfo, dir, comp, file string) {
	d := filepath.Join(dir, comp)
	if fi, err := os.Stat(filepath.Join(d, file)); err == nil {
		info.WeightBytes += fi.Size()
		return
	}
	raw, err := safefile.ReadRegular(filepath.Join(d, file+".index.json"), safefile.MaxIndexBytes)
	if err != nil {
		info.Problems = append(info.Problems, Problem{Path: comp + "/" + file, Component: Component(comp), Kind: MissingWeights})
		return
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		info.Problems = append(info.Problems, Problem{Path: comp + "/" + file + ".index.json", Component: Component(comp), Kind: Unreadable, Err: err})
	}
	seen := map[string]bool{}
	for _, shard := range idx.WeightMap {
		if seen[shard] {
			continue
		}
		seen[shard] = true
		fi, err := os.Stat(filepath.Join(d, shard))
		if err != nil {
			info.Problems = append(info.Problems, Problem{Path: comp + "/" + shard, Component: Component(comp)})
			continue
		}
		info.WeightBytes += fi.Size()
	}
}

// Inspect checks a model folder and reports its variant and exactly which files are
// missing. It returns an error only when dir itself is unusable or model_index.json is
// unreadable; missing files are listed in ModelInfo.Problems.
func Inspect(dir string) (ModelInfo, error) {
	info := ModelInfo{Dir: dir, Name: "custom"}
	st, err := os.Stat(dir)
	if err != nil {
		return info, fmt.Errorf("model folder: %w", err)
	}
	if !st.IsDir() {
		return info, fmt.Errorf("model folder %s is not a folder", dir)
	}
	for _, rel := range requiredFiles {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			info.Problems = append(info.Problems, Problem{Path: rel, Component: componentOf(rel)})
			continue
		}
		if strings.HasSuffix(rel, ".safetensors") {
			info.WeightBytes += fi.Size()
		}
	}
	for _, w := range weightFiles {
		inspectWeights(&info, dir, w.comp, w.file)
	}

	raw, err := safefile.ReadRegular(filepath.Join(dir, "model_index.json"), safefile.MaxConfigBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return info, nil
		}
		return info, fmt.Errorf("read %s: %w", filepath.Join(dir, "model_index.json"), err)
	}
	if info.Distilled, err = parseModelIndex(raw); err != nil {
		return info, fmt.Errorf("%s: %w", filepath.Join(dir, "model_index.json"), err)
	}
	if !slices.ContainsFunc(info.Problems, func(p Problem) bool { return p.Path == schedulerConfig }) {
		if info.Scheduler, err = sched.LoadConfig(filepath.Join(dir, schedulerConfig)); err != nil {
			return info, err
		}
	}
	info.DefaultSteps, info.DefaultGuidance = StepsFor(info.Distilled), GuidanceFor(info.Distilled)
	if raw, err := safefile.ReadRegular(filepath.Join(dir, "transformer", "config.json"), safefile.MaxConfigBytes); err == nil {
		var tc struct {
			Heads   int `json:"num_attention_heads"`
			HeadDim int `json:"attention_head_dim"`
		}
		if json.Unmarshal(raw, &tc) == nil {
			switch tc.Heads * tc.HeadDim {
			case 3072:
				info.Name = "klein-4B"
			case 4096:
				info.Name = "klein-9B"
			}
		}
	}
	return info, nil
}

// parseModelIndex checks the text of model_index.json: a JSON object whose _class_name,
// when given, is Flux2KleinPipeline and whose scheduler entry, when given, names
// FlowMatchEulerDiscreteScheduler (the only sampler implemented). It returns is_distilled.
func parseModelIndex(raw []byte) (distilled bool, err error) {
	var idx struct {
		Class       string          `json:"_class_name"`
		IsDistilled bool            `json:"is_distilled"`
		Scheduler   json.RawMessage `json:"scheduler"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return false, fmt.Errorf("malformed JSON: %w", err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return false, errors.New("malformed JSON: want an object")
	}
	if idx.Class != "" && idx.Class != "Flux2KleinPipeline" {
		return false, fmt.Errorf("pipeline class %q is not Flux2KleinPipeline", idx.Class)
	}
	if len(idx.Scheduler) > 0 && string(idx.Scheduler) != "null" {
		var lib []string
		if err := json.Unmarshal(idx.Scheduler, &lib); err != nil || len(lib) != 2 {
			return false, fmt.Errorf(`field "scheduler" is %.40s, want ["diffusers", "FlowMatchEulerDiscreteScheduler"]`, idx.Scheduler)
		}
		if lib[1] != "FlowMatchEulerDiscreteScheduler" {
			return false, fmt.Errorf(`field "scheduler" names %q: only FlowMatchEulerDiscreteScheduler is supported`, lib[1])
		}
	}
	return idx.IsDistilled, nil
}

// MissingError formats the missing-file list as one plain sentence: the first MaxListed
// files, and how many more (an index may name thousands of shards).
func (m ModelInfo) MissingError() error {
	if m.OK() {
		return nil
	}
	return fmt.Errorf("model folder %s is incomplete: missing %s", m.Dir, ListFew(missingPaths(m.Problems)))
}

// MaxListed is how many files a message names before it counts the rest (ListFew).
const MaxListed = 10

// ListFew joins the first MaxListed items with commas and says how many more there are.
func ListFew(items []string) string {
	if len(items) <= MaxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:MaxListed], ", "), len(items)-MaxListed)
}
