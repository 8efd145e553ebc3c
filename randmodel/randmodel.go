// Package randmodel writes FLUX.2-klein model folders with deterministic random weights in
// the exact layout of the real checkpoints: the Hugging Face folder (model_index.json,
// scheduler, text_encoder with two safetensors shards and their index, tokenizer,
// transformer, vae), the real configs, tensor names, shapes and dtypes (bf16, the VAE's
// int64 bn.num_batches_tracked). It stands in for the real weights, which cannot be
// downloaded everywhere, in benchmarks and tests.
//
// Values follow the recipe of the golden tiny models (golden/README.md, "Weights"), which
// keeps activations O(1) through every layer, with uniform instead of normal noise of the
// same variance. A counter-based generator makes every value a function of the seed, the
// tensor and the element index only, so chunks of a tensor are generated in parallel and a
// seed always gives byte-identical files. Files are streamed to disk (header first, then the
// tensors in chunks) and renamed into place when complete.
package randmodel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Variant selects the model size.
type Variant string

// The variants: the two real FLUX.2-klein sizes and the golden tiny model's configuration.
const (
	Klein4B Variant = "klein-4b" // Qwen3-4B + 5/20-block transformer, ~16 GB
	Klein9B Variant = "klein-9b" // Qwen3-8B + 8/24-block transformer, ~35 GB
	Tiny    Variant = "tiny"     // the golden tiny configs, ~14 MB
)

// Variants lists the known variants.
func Variants() []Variant { return []Variant{Klein4B, Klein9B, Tiny} }

// ParseVariant accepts a variant name, case-insensitively.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants() {
		if strings.EqualFold(s, string(v)) {
			return v, nil
		}
	}
	names := make([]string, 0, 3)
	for _, v := range Variants() {
		names = append(names, string(v))
	}
	return "", fmt.Errorf("unknown variant %q (want %s)", s, strings.Join(names, ", "))
}

// Options describe the model to write.
type Options struct {
	Variant Variant
	Seed    uint64
	// Base writes the undistilled variant (model_index.json "is_distilled": false); the
	// weights are the same.
	Base bool
	// Tokenizer is a folder holding the Qwen3 tokenizer.json (and tokenizer_config.json
	// etc.), or a model folder with a tokenizer/ subfolder. Its files are copied. Required.
	Tokenizer string
	// Workers generating values in parallel; 0 means GOMAXPROCS.
	Workers int
	// Progress, if non-nil, is called as weight data is written: the file being written
	// (relative path) and the weight bytes written so far out of the total.
	Progress func(file string, done, total int64)
}

// Stats summarise a Create.
type Stats struct {
	Tensors     int
	Files       int   // safetensors files
	WeightBytes int64 // total size of the safetensors files
	Elapsed     time.Duration
}

// MBPerSecond is the write rate in MB (10^6 bytes) per second.
func (s Stats) MBPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.WeightBytes) / 1e6 / s.Elapsed.Seconds()
}

// Marker is the provenance file randmodel writes into the folder: first with Complete false,
// rewritten with Complete true once every file is in place.
const Marker = "randmodel.json"

// markerFormat changes whenever the values or the layout written for a seed change, so that
// a cached folder from an older version is not mistaken for a current one.
const markerFormat = 1

type marker struct {
	Generator string  `json:"generator"`
	Format    int     `json:"format"`
	Variant   Variant `json:"variant"`
	Seed      uint64  `json:"seed"`
	Base      bool    `json:"base"`
	Complete  bool    `json:"complete"`
}

// tokenizerFiles are the tokenizer files copied when present (tokenizer.json is required).
var tokenizerFiles = []string{
	"tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt",
	"special_tokens_map.json", "added_tokens.json", "chat_template.jinja",
}

// Text encoder shard names, as transformers names a two-shard checkpoint.
const (
	shard1    = "model-00001-of-00002.safetensors"
	shard2    = "model-00002-of-00002.safetensors"
	indexFile = "model.safetensors.index.json"
)

// Create writes the model folder dir (created if needed). dir must be absent, empty, or a
// folder an earlier Create wrote (it has the Marker file); files are replaced atomically, and
// leftovers of an interrupted run are removed. Cancelling ctx stops the work and leaves no
// partial file under a final name.
func Create(ctx context.Context, dir string, opts Options) (Stats, error) {
	start := time.Now()
	d, ok := dims[opts.Variant]
	if !ok {
		return Stats{}, fmt.Errorf("randmodel: unknown variant %q", opts.Variant)
	}
	tokDir, err := tokenizerDir(opts.Tokenizer)
	if err != nil {
		return Stats{}, err
	}
	if err := prepareDir(dir); err != nil {
		return Stats{}, err
	}
	if err := writeMarker(dir, opts, false); err != nil {
		return Stats{}, err
	}
	if err := writeConfigs(dir, d, opts.Base); err != nil {
		return Stats{}, err
	}
	for _, name := range tokenizerFiles {
		src := filepath.Join(tokDir, name)
		b, err := safefile.ReadRegular(src, safefile.MaxTokenizerBytes)
		if errors.Is(err, os.ErrNotExist) && name != "tokenizer.json" {
			continue
		}
		if err != nil {
			return Stats{}, fmt.Errorf("randmodel: tokenizer: %w", err)
		}
		if err := writeBytes(filepath.Join(dir, "tokenizer", name), b); err != nil {
			return Stats{}, err
		}
	}

	files, index, err := plan(dir, opts.Seed)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Files: len(files)}
	for _, f := range files {
		st.Tensors += len(f.tensors)
		st.WeightBytes += f.size()
	}
	var done int64
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return Stats{}, err
		}
		done += int64(len(f.header))
		report := func(n int64) {
			done += n
			if opts.Progress != nil {
				opts.Progress(f.rel, done, st.WeightBytes)
			}
		}
		report(0)
		if err := f.write(ctx, filepath.Join(dir, filepath.FromSlash(f.rel)), opts.Workers, report); err != nil {
			return Stats{}, fmt.Errorf("randmodel: %w", err)
		}
	}
	if err := writeBytes(filepath.Join(dir, "text_encoder", indexFile), index); err != nil {
		return Stats{}, err
	}
	if err := writeMarker(dir, opts, true); err != nil {
		return Stats{}, err
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// writeConfigs writes the JSON files of the model folder (its subfolders must exist).
func writeConfigs(dir string, d variantDims, base bool) error {
	configs := []struct {
		rel string
		cfg map[string]any
	}{
		{"model_index.json", modelIndex(base)},
		{"scheduler/scheduler_config.json", schedulerConfig()},
		{"text_encoder/config.json", textEncoderConfig(d)},
		{"transformer/config.json", transformerConfig(d)},
		{"vae/config.json", vaeConfig(d)},
	}
	for _, c := range configs {
		b, err := configJSON(c.cfg)
		if err != nil {
			return err
		}
		if err := writeBytes(filepath.Join(dir, filepath.FromSlash(c.rel)), b); err != nil {
			return err
		}
	}
	return nil
}

// Check reports whether dir holds a complete model that Create wrote with the same variant,
// seed and base flag (and the current generator format): nil if so, else an error saying
// what differs or is missing. File contents are not read, only their sizes checked.
func Check(dir string, opts Options) error {
	raw, err := safefile.ReadRegular(filepath.Join(dir, Marker), safefile.MaxConfigBytes)
	if err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	var m marker
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("randmodel: %s: %w", filepath.Join(dir, Marker), err)
	}
	want := newMarker(opts, true)
	if m != want {
		return fmt.Errorf("randmodel: %s describes %+v, want %+v", filepath.Join(dir, Marker), m, want)
	}
	files, _, err := plan(dir, opts.Seed)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("randmodel: %w", err)
		}
		if st.Size() != f.size() {
			return fmt.Errorf("randmodel: %s has %d bytes, want %d", p, st.Size(), f.size())
		}
	}
	for _, rel := range []string{"text_encoder/" + indexFile, "tokenizer/tokenizer.json", "model_index.json", "scheduler/scheduler_config.json"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("randmodel: %w", err)
		}
	}
	return nil
}

// plan reads the configs written into dir and lists the safetensors files with their tensors,
// plus the text encoder's index JSON.
func plan(dir string, seed uint64) (files []*filePlan, index []byte, err error) {
	teCfg, err := qwen3.LoadConfig(filepath.Join(dir, "text_encoder", "config.json"))
	if err != nil {
		return nil, nil, err
	}
	var tie struct {
		Tied *bool `json:"tie_word_embeddings"`
	}
	if raw, err := safefile.ReadRegular(filepath.Join(dir, "text_encoder", "config.json"), safefile.MaxConfigBytes); err != nil {
		return nil, nil, fmt.Errorf("randmodel: %w", err)
	} else if err := json.Unmarshal(raw, &tie); err != nil {
		return nil, nil, fmt.Errorf("randmodel: text_encoder/config.json: %w", err)
	}
	trCfg, err := flux2.LoadConfig(filepath.Join(dir, "transformer", "config.json"))
	if err != nil {
		return nil, nil, err
	}
	vaeCfg, err := vae.LoadConfig(filepath.Join(dir, "vae", "config.json"))
	if err != nil {
		return nil, nil, err
	}

	// Text encoder, in model order (embedding, layers, final norm, untied lm_head), split
	// into two shards of about equal size as transformers' save_pretrained would.
	var te []tensorPlan
	for _, s := range qwen3.TensorSpecs(teCfg) {
		te = append(te, newTensor(seed, "text_encoder", s.Name, s.Shape))
	}
	if tie.Tied != nil && !*tie.Tied {
		te = append(te, newTensor(seed, "text_encoder", "lm_head.weight", []int{teCfg.VocabSize, teCfg.HiddenSize}))
	}
	var total, acc int64
	for i := range te {
		total += te[i].bytes()
	}
	var shards [2][]tensorPlan
	weightMap := map[string]string{}
	var params int64
	for _, t := range te {
		s := 0
		if acc >= total/2 {
			s = 1
		}
		acc += t.bytes()
		params += t.numel
		shards[s] = append(shards[s], t)
		weightMap[t.name] = []string{shard1, shard2}[s]
	}
	for i, name := range []string{shard1, shard2} {
		f, err := newFile("text_encoder/"+name, shards[i])
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	index, err = json.MarshalIndent(map[string]any{
		"metadata":   map[string]any{"total_parameters": params, "total_size": total},
		"weight_map": weightMap,
	}, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("randmodel: index: %w", err)
	}
	index = append(index, '\n')

	var tr []tensorPlan
	for _, s := range flux2.TensorSpecs(trCfg) {
		tr = append(tr, newTensor(seed, "transformer", s.Name, s.Shape))
	}
	f, err := newFile("transformer/diffusion_pytorch_model.safetensors", tr)
	if err != nil {
		return nil, nil, err
	}
	files = append(files, f)

	var va []tensorPlan
	for _, s := range vae.TensorSpecs(vaeCfg) {
		va = append(va, newTensor(seed, "vae", s.Name, s.Shape))
	}
	va = append(va, newTensor(seed, "vae", "bn.num_batches_tracked", []int{}))
	if f, err = newFile("vae/diffusion_pytorch_model.safetensors", va); err != nil {
		return nil, nil, err
	}
	files = append(files, f)
	return files, index, nil
}

// tokenizerDir finds the folder holding tokenizer.json: path itself or path/tokenizer.
func tokenizerDir(path string) (string, error) {
	if path == "" {
		return "", errors.New("randmodel: no tokenizer given: pass a folder with the Qwen3 tokenizer.json (e.g. golden/tokenizer) or a model folder")
	}
	for _, d := range []string{path, filepath.Join(path, "tokenizer")} {
		if st, err := os.Stat(filepath.Join(d, "tokenizer.json")); err == nil && st.Mode().IsRegular() {
			return d, nil
		}
	}
	return "", fmt.Errorf("randmodel: tokenizer: neither %s nor %s exists", filepath.Join(path, "tokenizer.json"), filepath.Join(path, "tokenizer", "tokenizer.json"))
}

// prepareDir creates dir and its subfolders, refusing a non-empty folder that randmodel did
// not write, and removes temporary files an interrupted run left behind.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("randmodel: %w", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, Marker)); err != nil {
			return fmt.Errorf("randmodel: %s is not empty and has no %s: refusing to write a model into it", dir, Marker)
		}
	}
	for _, sub := range []string{"scheduler", "text_encoder", "tokenizer", "transformer", "vae"} {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("randmodel: %w", err)
		}
		stale, _ := filepath.Glob(filepath.Join(p, ".*"+atomicfile.TempMarker+"*")) // atomicfile.WriteAtomic's temporaries
		for _, s := range stale {
			if err := os.Remove(s); err != nil {
				return fmt.Errorf("randmodel: remove stale temporary file: %w", err)
			}
		}
	}
	return nil
}

func newMarker(opts Options, complete bool) marker {
	return marker{Generator: "kleinbild randmodel", Format: markerFormat, Variant: opts.Variant,
		Seed: opts.Seed, Base: opts.Base, Complete: complete}
}

func writeMarker(dir string, opts Options, complete bool) error {
	b, err := json.MarshalIndent(newMarker(opts, complete), "", "  ")
	if err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	return writeBytes(filepath.Join(dir, Marker), append(b, '\n'))
}

// writeBytes writes a small file atomically.
func writeBytes(path string, b []byte) error {
	if err := atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	return nil
}
