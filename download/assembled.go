package download

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Part is one repository's share of an assembled model (a Variant with Parts).
type Part struct {
	Repo string
	// Dir is where the part's files go, relative to the model folder with forward slashes
	// ("" for the folder itself), each under its path in the repository. Every part keeps
	// its own download state (Dir/.kleinbild-download), so each resumes and verifies as a
	// whole-repository download does.
	Dir string
	// Files are the repository paths to fetch. Empty means the official repository's files
	// other than the transformer and text encoder: vae/, tokenizer/, model_index.json and
	// scheduler/scheduler_config.json (under 200 MB together).
	Files []string
}

// repoFile is one GGUF file of assembledTable.
type repoFile struct {
	repo, file string
	approx     int64 // bytes, approximate: the listing gives the real size and hash
}

// assembledTable is the one table of the GGUF files that assembled downloads fetch; correct
// names here. The repositories and the Q4_K_M transformer and Q8_0 text encoder names follow
// public scripts that fetch them; the other two names follow the same pattern and, like
// every size here, were not checked against the Hub (no network where this was written).
// A wrong name fails the download at once with "not found", before anything is written.
var assembledTable = []struct {
	base, quant          string
	transformer, textEnc repoFile
	quality              string
}{
	{
		base: "klein-4b", quant: "Q8_0",
		transformer: repoFile{"unsloth/FLUX.2-klein-4B-GGUF", "flux-2-klein-4b-Q8_0.gguf", 4_300_000_000},
		textEnc:     repoFile{"unsloth/Qwen3-4B-GGUF", "Qwen3-4B-Q8_0.gguf", 4_280_000_000},
		quality:     "8-bit weights: images stay very close to the full model's; differences show in fine detail when compared side by side.",
	},
	{
		base: "klein-4b", quant: "Q4_K_M",
		transformer: repoFile{"unsloth/FLUX.2-klein-4B-GGUF", "flux-2-klein-4b-Q4_K_M.gguf", 2_600_000_000},
		textEnc:     repoFile{"unsloth/Qwen3-4B-GGUF", "Qwen3-4B-Q4_K_M.gguf", 2_500_000_000},
		quality:     "4-bit weights: the same picture in most cases, but fine detail, small text and faces drift visibly from the full model's.",
	},
}

// officialApproxBytes is roughly what the official repository's part weighs (VAE + tokenizer).
const officialApproxBytes = 190_000_000

// Quants lists the quantizations of the assembled downloads, smallest loss first.
func Quants() []string {
	var out []string
	for _, a := range assembledTable {
		if !slices.Contains(out, a.quant) {
			out = append(out, a.quant)
		}
	}
	return out
}

// Assembled lists the assembled models: a quantized GGUF transformer and text encoder from
// their GGUF repositories with the VAE and tokenizer of the official repository, in the
// folder layout engine.OpenModelSource opens (transformer/X.gguf, text_encoder/Y.gguf, vae/,
// tokenizer/).
func Assembled() []Variant {
	var out []Variant
	for _, a := range assembledTable {
		base, err := VariantByID(a.base)
		if err != nil {
			continue
		}
		v := base
		v.ID = base.ID + "-" + strings.ToLower(a.quant)
		v.Quant = a.quant
		v.Title = fmt.Sprintf("%s, %s GGUF", base.Title, a.quant)
		v.Quality = a.quality
		v.ApproxBytes = a.transformer.approx + a.textEnc.approx + officialApproxBytes
		v.Parts = []Part{
			{Repo: base.Repo},
			{Repo: a.transformer.repo, Dir: "transformer", Files: []string{a.transformer.file}},
			{Repo: a.textEnc.repo, Dir: "text_encoder", Files: []string{a.textEnc.file}},
		}
		out = append(out, v)
	}
	return out
}

// Choices lists every download: each of Variants followed by its assembled models.
func Choices() []Variant {
	asm := Assembled()
	var out []Variant
	for _, v := range Variants() {
		out = append(out, v)
		for _, a := range asm {
			if strings.HasPrefix(a.ID, v.ID+"-") && a.Repo == v.Repo {
				out = append(out, a)
			}
		}
	}
	return out
}

// AssembledVariant returns the assembled model of variant base in quantization quant
// (case-insensitive, e.g. "q4_k_m").
func AssembledVariant(base Variant, quant string) (Variant, error) {
	var have []string
	for _, a := range Assembled() {
		if a.Repo != base.Repo {
			continue
		}
		if strings.EqualFold(a.Quant, quant) {
			return a, nil
		}
		have = append(have, a.Quant)
	}
	if len(have) == 0 {
		var bases []string
		for _, a := range Assembled() {
			if id := strings.TrimSuffix(a.ID, "-"+strings.ToLower(a.Quant)); !slices.Contains(bases, id) {
				bases = append(bases, id)
			}
		}
		return Variant{}, fmt.Errorf("no quantized download of %s: there are some for %s", base.ID, strings.Join(bases, ", "))
	}
	return Variant{}, fmt.Errorf("no %s download of %s: choose one of %s", quant, base.ID, strings.Join(have, ", "))
}

// DownloadVariant fetches v into dir: its repository (Download), or for an assembled model
// each of its parts in turn, each resumable and verified like Download. Progress reports
// count over all parts.
func DownloadVariant(ctx context.Context, v Variant, dir string, opts Options) (*Result, error) {
	if len(v.Parts) == 0 {
		return Download(ctx, v.Repo, dir, opts)
	}
	o := opts.withDefaults()
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if o.Progress != nil {
		o.Progress(Progress{Phase: PhaseListing, Repo: v.Parts[0].Repo})
	}
	// Every listing first: the total size, and a missing file fails before any is written.
	var total int64
	files := 0
	for _, pt := range v.Parts {
		l, err := c.listSel(ctx, pt.Repo, pt.selection())
		if err != nil {
			return nil, err
		}
		total += l.TotalBytes()
		files += len(l.Files)
	}
	res := &Result{Dir: dir, Repo: v.Repo}
	for i, pt := range v.Parts {
		po := o
		if o.Progress != nil {
			po.Progress = partProgress(o.Progress, start, res.Bytes, res.Files, total, files, i == len(v.Parts)-1)
		}
		r, err := fetch(ctx, c, po, pt.Repo, pt.selection(), filepath.Join(dir, filepath.FromSlash(pt.Dir)))
		if err != nil {
			return nil, err
		}
		if pt.Dir == "" {
			res.Commit = r.Commit
		}
		res.Files += r.Files
		res.Bytes += r.Bytes
		res.Fetched += r.Fetched
		res.Reused += r.Reused
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// partProgress turns one part's progress reports into reports over the whole assembled
// download: the parts before it (bytesBefore, filesBefore) count as done, totals are the
// whole, and only the last part's end is PhaseDone.
func partProgress(fn func(Progress), start time.Time, bytesBefore int64, filesBefore int, total int64, files int, last bool) func(Progress) {
	return func(p Progress) {
		p.Elapsed = time.Since(start)
		if p.Phase == PhaseChecking {
			fn(p) // bytes hashed of the files already there, out of their own total
			return
		}
		p.Bytes += bytesBefore
		p.FilesDone += filesBefore
		p.TotalBytes, p.Files = max(total, p.Bytes), files
		if (p.Phase == PhaseDone && !last) || (p.Phase == PhaseListing && bytesBefore > 0) {
			p.Phase = PhaseDownloading
		}
		p.ETA = 0
		if left := p.TotalBytes - p.Bytes; left > 0 && p.Rate > 1 {
			p.ETA = time.Duration(float64(left) / p.Rate * float64(time.Second))
		}
		fn(p)
	}
}

// selection is what the part fetches from its repository (see Part.Files).
func (pt Part) selection() selection {
	if len(pt.Files) == 0 {
		return selection{needed: officialNeeded, check: checkOfficial}
	}
	return selection{
		needed: func(p string) bool { return slices.Contains(pt.Files, p) },
		check: func(repo string, l *Listing) error {
			for _, f := range pt.Files {
				if _, ok := l.File(f); !ok {
					return fmt.Errorf("%s has no file %s (the assembled downloads' file names are in download/assembled.go): %w", repo, f, ErrNotFound)
				}
			}
			return nil
		},
	}
}

// officialNeeded keeps the files of the official repository that an assembled model takes
// from it: what Needed keeps, less the transformer and text encoder.
func officialNeeded(p string) bool {
	return Needed(p) && !strings.HasPrefix(p, "transformer/") && !strings.HasPrefix(p, "text_encoder/")
}

// checkOfficial reports what an official repository lacks for an assembled model.
func checkOfficial(repo string, l *Listing) error {
	var missing []string
	for _, p := range []string{"vae/config.json", "tokenizer/tokenizer.json"} {
		if _, ok := l.File(p); !ok {
			missing = append(missing, p)
		}
	}
	if !slices.ContainsFunc(l.Files, func(f RemoteFile) bool {
		return strings.HasPrefix(f.Path, "vae/") && strings.HasSuffix(f.Path, ".safetensors")
	}) {
		missing = append(missing, "vae/*.safetensors")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s does not hold a FLUX.2 VAE and tokenizer in diffusers layout: it lacks %s", repo, strings.Join(missing, ", "))
	}
	return nil
}

// ListVariant fetches the listing of what DownloadVariant fetches for v: List of its
// repository, or for an assembled model the files of every part with paths relative to
// the model folder (for Validate's Expected).
func ListVariant(ctx context.Context, v Variant, opts Options) (*Listing, error) {
	if len(v.Parts) == 0 {
		return List(ctx, v.Repo, opts)
	}
	o := opts.withDefaults()
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	out := &Listing{Repo: v.Repo}
	for _, pt := range v.Parts {
		l, err := c.listSel(ctx, pt.Repo, pt.selection())
		if err != nil {
			return nil, err
		}
		if pt.Dir == "" {
			out.Commit = l.Commit
		}
		out.Gated = out.Gated || l.Gated
		out.Skipped += l.Skipped
		for _, f := range l.Files {
			f.Path = path.Join(pt.Dir, f.Path)
			out.Files = append(out.Files, f)
		}
	}
	slices.SortFunc(out.Files, func(a, b RemoteFile) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
