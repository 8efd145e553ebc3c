package download

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/sched"
	"kleinbild/engine/source"
	"kleinbild/gpu"
	"kleinbild/weights"

	"kleinbild/internal/safefile"
)

// ProblemKind classifies a Problem.
type ProblemKind string

// The kinds of problems Validate reports.
const (
	Missing  ProblemKind = "missing"  // the file is absent (or a dangling symlink)
	Corrupt  ProblemKind = "corrupt"  // unreadable, truncated, malformed, or not what config.json describes
	Mismatch ProblemKind = "mismatch" // size or hash differs from the expected listing
)

// Problem is one thing wrong with a model folder.
type Problem struct {
	// Path is relative to the folder, with forward slashes (a folder ends with "/").
	Path   string
	Kind   ProblemKind
	Detail string
}

func (p Problem) String() string {
	if p.Detail == "" {
		return fmt.Sprintf("%s: %s", p.Path, p.Kind)
	}
	return fmt.Sprintf("%s: %s (%s)", p.Path, p.Kind, p.Detail)
}

// ValidateOptions select the checks of Validate beyond the always-run structural ones.
type ValidateOptions struct {
	// Hash reads every file and compares its size and hash with Expected; when Expected is
	// nil, with the manifest Download left in the folder; without one, with the blob names
	// of a Hugging Face cache snapshot (whose files are symlinks to blobs named by hash).
	Hash     bool
	Expected *Listing
	// Backend, when set, also loads the transformer, VAE and text encoder on it (no compute;
	// on a CPU backend the weights are only mapped, a GPU backend copies them) and loads the
	// tokenizer, which checks every tensor's presence, dtype and shape against config.json.
	Backend gpu.Backend
	// Progress, when set, receives hashing progress (called from Validate's goroutine).
	Progress func(HashProgress)
}

// HashProgress reports Validate's hashing.
type HashProgress struct {
	File              string
	Bytes, TotalBytes int64
}

// Report is the outcome of Validate.
type Report struct {
	Dir  string
	Info engine.ModelInfo
	// Problems are sorted by path; empty when the folder is usable.
	Problems []Problem
	// Files is the number of files examined; Hashed how many had their hash compared.
	Files, Hashed int
	// HashSource says what hashes were compared with: "listing", "manifest",
	// "cache blob names", or "" when none were.
	HashSource string
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Err summarises the problems in one error (nil when OK).
func (r *Report) Err() error {
	if r.OK() {
		return nil
	}
	parts := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		parts[i] = p.String()
	}
	noun := "problems"
	if len(parts) == 1 {
		noun = "problem"
	}
	return fmt.Errorf("model folder %s has %d %s: %s", r.Dir, len(parts), noun, strings.Join(parts, "; "))
}

func (r *Report) add(p string, k ProblemKind, detail string) {
	r.Problems = append(r.Problems, Problem{Path: p, Kind: k, Detail: detail})
}

// has reports whether a problem concerns p or a file under the folder p.
func (r *Report) has(prefix string) bool {
	return slices.ContainsFunc(r.Problems, func(q Problem) bool { return strings.HasPrefix(q.Path, prefix) })
}

// weightFolders are the components holding safetensors weights.
var weightFolders = []string{"text_encoder", "transformer", "vae"}

// Validate checks a model folder in place and reports precisely what is missing or corrupt:
// the files engine.Inspect requires, every JSON file, the header and layout of every
// safetensors file (a truncated file is caught here) and the consistency of shard indexes;
// optionally hashes (opts.Hash) and tensor shapes (opts.Backend). A folder whose
// transformer/ and text_encoder/ hold single GGUF files (an assembled download, see
// engine.FolderFiles) is checked as the engine opens it: those files' headers instead of a
// config and safetensors, and the hashes of the manifests inside them. It returns an error only
// when dir cannot be examined at all or ctx ends.
func Validate(ctx context.Context, dir string, opts ValidateOptions) (*Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("model folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("model folder %s is not a folder", dir)
	}
	r := &Report{Dir: dir}
	// The scheduler's settings are checked as the engine reads them (sched.LoadConfig), and
	// reported under their own file rather than as a failure of engine.Inspect.
	const schedPath = "scheduler/scheduler_config.json"
	schedFull := filepath.Join(dir, filepath.FromSlash(schedPath))
	schedBad := false
	if _, err := os.Lstat(schedFull); err == nil {
		if _, err := sched.LoadConfig(schedFull); err != nil {
			schedBad = true
			r.add(schedPath, Corrupt, schedProblem(err, schedPath))
		}
	}
	info, err := engine.Inspect(dir)
	r.Info = info
	if ce := (*sched.ConfigError)(nil); err != nil && !(schedBad && errors.As(err, &ce)) {
		r.add("model_index.json", Corrupt, err.Error())
	}
	files := engine.FolderFiles(dir) // an assembled model's GGUF transformer and text encoder
	for _, m := range info.Problems {
		if coveredByFile(files, m) {
			continue
		}
		var detail string
		switch m.Kind {
		case source.Unreadable:
			r.add(m.Path, Corrupt, fmt.Sprintf("unreadable: %v", m.Err))
			continue
		case source.MissingWeights:
			detail = fmt.Sprintf("or %s.index.json with its shards", path.Base(m.Path))
		}
		if target, err := os.Readlink(filepath.Join(dir, filepath.FromSlash(m.Path))); err == nil {
			detail = "dangling symlink to " + target
		}
		r.add(m.Path, Missing, detail)
	}

	// JSON files.
	jsonFiles := []string{"model_index.json", "scheduler/scheduler_config.json"}
	for _, comp := range weightFolders {
		jsonFiles = append(jsonFiles, comp+"/config.json")
	}
	for _, comp := range append([]string{"tokenizer"}, weightFolders...) {
		entries, _ := os.ReadDir(filepath.Join(dir, comp))
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") && n != "config.json" {
				jsonFiles = append(jsonFiles, comp+"/"+n)
			}
		}
	}
	for _, p := range jsonFiles {
		raw, err := safefile.ReadRegular(filepath.Join(dir, filepath.FromSlash(p)), safefile.MaxIndexBytes)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !r.has(p) { // a FIFO, a device, too large
				r.add(p, Corrupt, err.Error())
			}
			continue // missing required files are reported above
		}
		r.Files++
		if !json.Valid(raw) && !r.has(p) {
			r.add(p, Corrupt, fmt.Sprintf("not valid JSON (%d bytes; truncated?)", len(raw)))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Safetensors headers, file by file, then each component's index consistency.
	for _, comp := range weightFolders {
		for _, p := range safetensorsFiles(dir, comp) {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if _, err := os.Stat(full); err != nil {
				if !r.has(p) {
					detail := ""
					if target, err := os.Readlink(full); err == nil {
						detail = "dangling symlink to " + target
					}
					r.add(p, Missing, detail)
				}
				continue
			}
			r.Files++
			f, err := weights.OpenFile(full)
			if err != nil {
				r.add(p, Corrupt, fileProblem(err))
				continue
			}
			f.Close()
		}
		if r.has(comp+"/") || !hasWeights(dir, comp) {
			continue
		}
		ck, err := weights.Open(filepath.Join(dir, comp))
		if err != nil {
			r.add(comp+"/", Corrupt, err.Error())
			continue
		}
		ck.Close()
	}

	var src engine.Source = engine.FolderSource(info)
	if !files.Empty() {
		src = r.checkFolderFiles(dir, files)
	}
	if opts.Backend != nil && src != nil {
		r.deepCheck(src, opts.Backend)
	}
	if opts.Hash {
		if err := r.hashCheck(ctx, dir, opts); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(r.Problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return r, nil
}

// safetensorsFiles lists the component's *.safetensors files (forward-slash paths relative to
// the model folder): those in the folder plus the shards its index names.
func safetensorsFiles(dir, comp string) []string {
	var out []string
	entries, _ := os.ReadDir(filepath.Join(dir, comp))
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		if strings.HasSuffix(n, ".safetensors") {
			out = append(out, comp+"/"+n)
		}
		if strings.HasSuffix(n, ".safetensors.index.json") {
			raw, err := safefile.ReadRegular(filepath.Join(dir, comp, n), safefile.MaxIndexBytes)
			if err != nil {
				continue
			}
			var idx struct {
				WeightMap map[string]string `json:"weight_map"`
			}
			if json.Unmarshal(raw, &idx) != nil {
				continue
			}
			for _, shard := range idx.WeightMap {
				if shard != "" && !strings.ContainsAny(shard, `/\`) {
					out = append(out, comp+"/"+shard)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasWeights reports whether the component folder holds any weight file or index.
func hasWeights(dir, comp string) bool {
	entries, _ := os.ReadDir(filepath.Join(dir, comp))
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		n := e.Name()
		return !strings.HasPrefix(n, ".") && (strings.HasSuffix(n, ".safetensors") || strings.HasSuffix(n, ".safetensors.index.json"))
	})
}

// fileProblem words a safetensors file's error for the report, which names the file
// already: a *weights.FileError without its path.
func fileProblem(err error) string {
	var fe *weights.FileError
	if errors.As(err, &fe) {
		return fe.Err.Error()
	}
	return err.Error()
}

// schedProblem words the scheduler config's error with the file's path in the folder (rel)
// in place of its full path.
func schedProblem(err error, rel string) string {
	var ce *sched.ConfigError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	shown := *ce
	shown.Path = rel
	if pe := (*fs.PathError)(nil); errors.As(ce.Err, &pe) {
		p := *pe
		p.Path = rel
		shown.Err = &p
	}
	return shown.Error()
}

// deepCheck binds each network whose files passed the structural checks.
func (r *Report) deepCheck(src engine.Source, b gpu.Backend) {
	for _, c := range []engine.Component{engine.Transformer, engine.VAE, engine.TextEncoder} {
		if r.has(string(c) + "/") {
			continue
		}
		if err := engine.CheckLoad(src, c, b); err != nil {
			r.add(string(c)+"/", Corrupt, err.Error())
		}
	}
	if !r.has("tokenizer/") {
		if _, err := src.Tokenizer(); err != nil {
			r.add("tokenizer/", Corrupt, err.Error())
		}
	}
}

var blobNameRE = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// hashCheck compares sizes and hashes with the expected listing.
func (r *Report) hashCheck(ctx context.Context, dir string, opts ValidateOptions) error {
	exp := opts.Expected
	r.HashSource = "listing"
	if exp == nil {
		m, err := readManifest(dir)
		switch {
		case err == nil:
			exp, r.HashSource = m.listing(), "manifest"
		case errors.Is(err, errNoListing):
			exp, r.HashSource = cacheBlobListing(dir), "cache blob names"
		default:
			return err
		}
		if sub := componentManifests(dir); len(sub) > 0 {
			if r.HashSource != "manifest" {
				exp = &Listing{}
			}
			exp.Files, r.HashSource = append(exp.Files, sub...), "manifest"
		}
	}
	if exp == nil || len(exp.Files) == 0 {
		r.HashSource = ""
		return nil
	}
	var total, done int64
	for _, f := range exp.Files {
		total += f.Size
	}
	for _, f := range exp.Files {
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		st, err := os.Stat(full)
		if err != nil {
			if !r.has(f.Path) {
				r.add(f.Path, Missing, "listed by the "+r.HashSource)
			}
			done += f.Size
			continue
		}
		if st.Size() != f.Size {
			if !r.has(f.Path) {
				r.add(f.Path, Mismatch, fmt.Sprintf("%d bytes, expected %d", st.Size(), f.Size))
			}
			done += f.Size
			continue
		}
		base := done
		var mismatch *ChecksumError
		err = checkFile(ctx, full, f, func(n int64) {
			if opts.Progress != nil {
				opts.Progress(HashProgress{File: f.Path, Bytes: base + n, TotalBytes: total})
			}
		})
		done += f.Size
		switch {
		case err == nil:
			if f.SHA256 != "" || f.BlobID != "" {
				r.Hashed++
			}
		case errors.As(err, &mismatch):
			r.Hashed++
			r.add(f.Path, Mismatch, mismatch.Detail)
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			r.add(f.Path, Corrupt, err.Error())
		}
	}
	return nil
}

// cacheBlobListing builds the expected hashes of a Hugging Face cache snapshot from the
// names of the blobs its files link to (sha256 for LFS files, the git blob id for others).
func cacheBlobListing(dir string) *Listing {
	l := &Listing{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() && strings.HasPrefix(e.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if e.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || !Needed(filepath.ToSlash(rel)) {
			return nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return nil
		}
		name := path.Base(filepath.ToSlash(target))
		if !blobNameRE.MatchString(name) {
			return nil
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil // dangling: reported as missing elsewhere
		}
		f := RemoteFile{Path: filepath.ToSlash(rel), Size: st.Size()}
		if len(name) == 64 {
			f.SHA256 = name
		} else {
			f.BlobID = name
		}
		l.Files = append(l.Files, f)
		return nil
	})
	return l
}

// coveredByFile reports whether the file engine.Inspect lists as missing (m) is not needed
// because files gives the component: a GGUF transformer's folder needs no config or
// safetensors, and then model_index.json and the scheduler's settings are optional (see
// engine.FolderFiles).
func coveredByFile(files engine.Overrides, m source.Problem) bool {
	if files.Transformer != "" && (m.Component == source.Transformer || m.Path == "model_index.json" || m.In("scheduler")) {
		return true
	}
	return files.TextEncoder != "" && m.Component == source.TextEncoder
}

// checkFolderFiles checks the headers of a folder's single component files (files) as the
// engine reads them and returns the folder opened as the engine opens it (nil when a file
// is broken: it is reported under its path).
func (r *Report) checkFolderFiles(dir string, files engine.Overrides) engine.Source {
	broken := false
	for _, f := range []engine.Overrides{{Transformer: files.Transformer}, {TextEncoder: files.TextEncoder}} {
		path := f.Transformer + f.TextEncoder
		if path == "" {
			continue
		}
		r.Files++
		if _, err := engine.NewParts(nil, f); err != nil {
			rel, _ := filepath.Rel(dir, path)
			r.add(filepath.ToSlash(rel), Corrupt, strings.ReplaceAll(err.Error(), path, filepath.ToSlash(rel)))
			broken = true
		}
	}
	if broken {
		return nil
	}
	src, err := engine.OpenModelSource(dir, engine.Overrides{})
	if err != nil {
		r.add("./", Corrupt, err.Error())
		return nil
	}
	r.Info = src.Info()
	return src
}

// componentManifests are the files the download manifests inside transformer/ and
// text_encoder/ record (an assembled download keeps one per repository), with paths
// relative to the model folder.
func componentManifests(dir string) []RemoteFile {
	var out []RemoteFile
	for _, comp := range []string{"transformer", "text_encoder"} {
		m, err := readManifest(filepath.Join(dir, comp))
		if err != nil {
			continue
		}
		for _, f := range m.Files {
			f.Path = comp + "/" + f.Path
			out = append(out, f.RemoteFile)
		}
	}
	return out
}
