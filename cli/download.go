package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"kleinbild/download"
	"kleinbild/gpu/backends"
)

// runDownload: kleinbild download [--variant klein-4b] [--quant Q8_0|Q4_K_M] -o DIR [--token T]
// [--connections N] [-q] fetches a model from Hugging Face into DIR (running it again
// resumes), then checks it; --quant fetches the assembled model instead (a GGUF transformer
// and text encoder with the official VAE and tokenizer);
// kleinbild download --verify -o DIR checks an existing folder (a download, another tool's
// folder or a Hugging Face cache snapshot) including full hashes.
func runDownload(args []string, stdout, stderr io.Writer) error {
	var ids []string
	for _, v := range download.Variants() {
		ids = append(ids, v.ID)
	}
	fs := newFlags("download", stderr)
	variant := fs.String("variant", "klein-4b", "model to fetch: "+strings.Join(ids, ", ")+" (the 9B ones are gated: they need a token)")
	quant := fs.String("quant", "", "fetch a smaller assembled model: the "+strings.Join(download.Quants(), " or ")+
		" GGUF transformer and Qwen3 text encoder with the official VAE and tokenizer (klein-4b only)")
	out := fs.String("o", "", "model folder to create, resume or (with --verify) check")
	token := fs.String("token", "", "Hugging Face access token (default: $HF_TOKEN, else the token saved by hf auth login)")
	conns := fs.Int("connections", 4, "parallel connections, 1..16")
	verify := fs.Bool("verify", false, "check the folder instead of downloading: files, headers, tensor shapes and full hashes")
	quiet := fs.Bool("q", false, "quiet: print only errors")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	if *out == "" {
		return usageErr("-o DIR is required")
	}
	if *conns < 1 || *conns > 16 {
		return usageErr("--connections %d out of range 1..16", *conns)
	}
	v, err := download.VariantByID(*variant)
	if err != nil {
		return usageErr("%v", err)
	}
	if *quant != "" {
		if v, err = download.AssembledVariant(v, *quant); err != nil {
			return usageErr("%v", err)
		}
	}
	variantSet := false
	fs.Visit(func(f *flag.Flag) { variantSet = variantSet || f.Name == "variant" || f.Name == "quant" })

	ctx, stop := interruptContext()
	defer stop()
	opts := download.Options{Token: *token, Connections: *conns}
	if *verify {
		return verifyFolder(ctx, *out, v, variantSet, opts, *quiet, stdout, stderr)
	}

	if !*quiet {
		fmt.Fprintf(stderr, "Downloading %s (%s) to %s\n", downloadSources(v), v.Title, *out)
		if v.Quality != "" {
			fmt.Fprintf(stderr, "About %s. %s\n", download.FormatBytes(v.ApproxBytes), v.Quality)
		}
	}
	status := newStatusLine(stderr, isTerminal(stderr))
	if !*quiet {
		opts.Progress = func(p download.Progress) {
			if p.Note != "" {
				status.note(p.Note)
			}
			status.show(downloadLine(p), p.Phase == download.PhaseDone)
		}
	}
	res, err := download.DownloadVariant(ctx, v, *out, opts)
	status.clear()
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "Downloaded %d files (%s; %s fetched now, %s were already there) in %s\n",
			res.Files, download.FormatBytes(res.Bytes), download.FormatBytes(res.Fetched), download.FormatBytes(res.Reused), res.Elapsed.Round(time.Second))
	}
	b := backends.DefaultCPU() // the CPU backend only maps the weights to check them
	defer b.Close()
	rep, err := download.Validate(ctx, *out, download.ValidateOptions{Backend: b})
	if err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "Model ready: %s (%s)\n", *out, rep.Info.Variant())
	}
	return nil
}

// verifyFolder checks a model folder: structure, safetensors headers, tensor shapes, and
// hashes against the Hub listing (when --variant is given and the Hub answers), else the
// download manifest, else the blob names of a Hugging Face cache snapshot.
func verifyFolder(ctx context.Context, dir string, v download.Variant, online bool, opts download.Options, quiet bool, stdout, stderr io.Writer) error {
	b := backends.DefaultCPU() // the CPU backend only maps the weights to check them
	defer b.Close()
	vo := download.ValidateOptions{Hash: true, Backend: b}
	if online {
		l, err := download.ListVariant(ctx, v, opts)
		switch {
		case err == nil:
			vo.Expected = l
		case ctx.Err() != nil:
			return err
		default:
			fmt.Fprintf(stderr, "Could not fetch the file list of %s (%v): comparing with local records only\n", v.Repo, err)
		}
	}
	status := newStatusLine(stderr, isTerminal(stderr))
	if !quiet {
		vo.Progress = func(p download.HashProgress) {
			status.show(fmt.Sprintf("Hashing  %s / %s  %s", download.FormatBytes(p.Bytes), download.FormatBytes(p.TotalBytes), p.File), p.Bytes >= p.TotalBytes)
		}
	}
	rep, err := download.Validate(ctx, dir, vo)
	status.clear()
	if err != nil {
		return err
	}
	hashes := "no hashes to compare with (no manifest, not a Hugging Face cache snapshot; give --variant to fetch them)"
	if rep.HashSource != "" {
		hashes = fmt.Sprintf("%d hashed against the %s", rep.Hashed, rep.HashSource)
	}
	if rep.OK() {
		if !quiet {
			fmt.Fprintf(stdout, "OK: %s is a complete %s model (%d files checked, %s)\n", dir, rep.Info.Variant(), rep.Files, hashes)
		}
		return nil
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	noun := "problems"
	if len(rep.Problems) == 1 {
		noun = "problem"
	}
	return fmt.Errorf("%s: %d %s found (%d files checked, %s)", dir, len(rep.Problems), noun, rep.Files, hashes)
}

// downloadSources names where v's files come from: its repository, or for an assembled
// model each repository with what it gives.
func downloadSources(v download.Variant) string {
	if len(v.Parts) == 0 {
		return v.Repo
	}
	var s []string
	for _, pt := range v.Parts {
		what := "VAE, tokenizer"
		if len(pt.Files) > 0 {
			what = strings.Join(pt.Files, ", ")
		}
		s = append(s, fmt.Sprintf("%s (%s)", pt.Repo, what))
	}
	return strings.Join(s, " + ")
}

// downloadLine formats one progress line: phase, bytes, percentage, rate, ETA, file.
func downloadLine(p download.Progress) string {
	switch p.Phase {
	case download.PhaseListing:
		return "Listing " + p.Repo
	case download.PhaseChecking:
		return fmt.Sprintf("Checking existing files  %s / %s  %3.0f%%  %s", download.FormatBytes(p.Bytes), download.FormatBytes(p.TotalBytes), 100*p.Fraction(), p.File)
	case download.PhaseDone:
		return fmt.Sprintf("Done  %s", download.FormatBytes(p.TotalBytes))
	}
	line := fmt.Sprintf("%s  %s / %s  %3.0f%%  %s/s", strings.ToUpper(string(p.Phase[:1]))+string(p.Phase[1:]),
		download.FormatBytes(p.Bytes), download.FormatBytes(p.TotalBytes), 100*p.Fraction(), download.FormatBytes(int64(p.Rate)))
	if p.ETA > 0 {
		line += "  ETA " + p.ETA.Round(time.Second).String()
	}
	return line + "  " + p.File
}

// statusLine shows progress on a terminal as one line redrawn in place; into a pipe or a
// file it writes plain lines, fewer of them, and no control codes.
type statusLine struct {
	w     io.Writer
	tty   bool
	every time.Duration // the least time between two shown lines
	last  time.Time
	shown bool // a terminal line is on screen
}

func newStatusLine(w io.Writer, tty bool) *statusLine {
	every := time.Second
	if !tty {
		every = 10 * time.Second
	}
	return &statusLine{w: w, tty: tty, every: every}
}

// show displays line, at most once per s.every unless force is set.
func (s *statusLine) show(line string, force bool) {
	if !force && time.Since(s.last) < s.every {
		return
	}
	s.last = time.Now()
	if !s.tty {
		fmt.Fprintln(s.w, line)
		return
	}
	fmt.Fprintf(s.w, "\r\033[K%s", line)
	s.shown = true
}

// note prints a line that stays (above the redrawn one on a terminal).
func (s *statusLine) note(line string) {
	if s.tty {
		fmt.Fprint(s.w, "\r\033[K")
		s.shown = false
	}
	fmt.Fprintln(s.w, line)
}

// clear removes the redrawn line from a terminal.
func (s *statusLine) clear() {
	if s.tty && s.shown {
		fmt.Fprint(s.w, "\r\033[K")
		s.shown = false
	}
}
