package modelui

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/humanize"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/download"
	"kleinbild/engine"
)

// tokensPage is where Hugging Face access tokens are created.
const tokensPage = "https://huggingface.co/settings/tokens"

// DownloadRun is the model download of this session: running, paused or ended.
type DownloadRun struct {
	Variant download.Variant
	Dir     string
	Cancel  context.CancelFunc
	Running bool
	Last    download.Progress
	err     error // why it stopped; context.Canceled when paused
	offline bool  // the latest request could not reach Hugging Face (retrying quietly)
}

// noConnection reports whether err means Hugging Face could not be reached at all: the
// name did not resolve or no connection could be opened.
func noConnection(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}

// watchTransport tells report about every request: whether it failed to connect.
type watchTransport struct {
	base   http.RoundTripper
	report func(offline bool)
}

func (w watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(req)
	if err != nil && req.Context().Err() == nil {
		if noConnection(err) {
			w.report(true)
		}
	} else if err == nil {
		w.report(false)
	}
	return resp, err
}

// startLabel is the start button's label for the state of a stopped download in dir.
func startLabel(r *DownloadRun, dir string) string {
	mine := r != nil && r.Dir == dir
	switch {
	case (mine && r.Last.Bytes > 0) || partialDownload(dir):
		return "Resume download"
	case mine && r.err != nil && !errors.Is(r.err, context.Canceled):
		return "Try again"
	}
	return "Download"
}

// DownloadPanel is the "Download" section of the model setup. The setup guide and the model
// dialog each hold one; both show the session's single download.
type DownloadPanel struct {
	variant  *widgets.EscapeSelect
	note     *widget.Label // the chosen download's size and what it costs in quality
	Dest     *widgets.EscapeEntry
	token    *widgets.EscapeEntry
	remember *widgets.EscapeCheck
	start    *widget.Button
	Pause    *widget.Button
	Bar      *widget.ProgressBar
	Busy     *widget.ProgressBarInfinite // while the total is unknown
	Detail   *widget.Label
	msg      *widget.RichText
	cached   *fyne.Container
	// Box is the panel as it is laid out.
	Box *fyne.Container

	defaultDest string // the destination suggested for the selected variant
}

// variantLabel names a variant in the menu: title, approximate size, gated marker.
func variantLabel(v download.Variant) string {
	s := fmt.Sprintf("%s · about %s", v.Title, humanize.Bytes(uint64(max(v.ApproxBytes, 0))))
	if v.Gated && !strings.Contains(v.Title, "gated") {
		s += " · gated (token needed)"
	}
	return s
}

// defaultDownloadDir is where a variant is downloaded unless the user picks another folder.
func (m *Model) defaultDownloadDir(v download.Variant) string {
	return filepath.Join(m.sh.DataDir, "models", v.ID)
}

// partialDownload reports whether dir holds an unfinished download (hub's state folder, and
// the model folder not yet complete).
func partialDownload(dir string) bool {
	if dir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, download.StateDir)); err != nil {
		return false
	}
	if f := engine.FolderFiles(dir); f.Transformer != "" && f.TextEncoder != "" {
		return assembledPending(dir) // both GGUF files in place: the official part came first
	}
	_, err := inspectModel(dir)
	return err != nil
}

// NewDownloadPanel builds a download section and registers it for progress updates;
// release unregisters it.
func (m *Model) NewDownloadPanel() (p *DownloadPanel, release func()) {
	p = &DownloadPanel{}
	variants := download.Choices()
	labels := make([]string, len(variants))
	for i, v := range variants {
		labels[i] = variantLabel(v)
	}
	p.Dest = widgets.NewEscapeEntry()
	p.Dest.SetPlaceHolder("Destination folder")
	p.Dest.OnChanged = func(string) { p.refresh(m) }
	p.note = widget.NewLabel("")
	p.note.Wrapping = fyne.TextWrapWord
	p.note.SizeName = theme.SizeNameCaptionText
	p.variant = widgets.NewEscapeSelect(labels, func(string) {
		v := p.Selected()
		p.note.SetText(choiceNote(v))
		cur := strings.TrimSpace(p.Dest.Text)
		def := m.defaultDownloadDir(v)
		if cur == "" || cur == p.defaultDest {
			p.Dest.SetText(def)
		}
		p.defaultDest = def
		p.refresh(m)
	})
	p.cached = container.NewVBox()
	p.token = widgets.NewEscapePasswordEntry()
	p.token.SetPlaceHolder("Hugging Face token (only for gated models)")
	tok := m.sh.Settings.HFToken
	if tok == "" {
		tok = download.DefaultToken()
	}
	p.token.SetText(tok)
	p.remember = widgets.NewEscapeCheck("Remember the token", nil)
	p.remember.SetChecked(m.sh.Settings.HFToken != "")
	p.start = widget.NewButtonWithIcon("Download", theme.DownloadIcon(), func() { m.startDownloadFrom(p) })
	p.start.Importance = widget.HighImportance
	p.Pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), m.PauseDownload)
	p.Bar = widget.NewProgressBar()
	p.Busy = widget.NewProgressBarInfinite()
	p.Busy.Hide()
	p.Detail = widget.NewLabel("")
	p.Detail.Wrapping = fyne.TextWrapWord
	p.Detail.SizeName = theme.SizeNameCaptionText
	p.msg = widget.NewRichText()
	p.msg.Wrapping = fyne.TextWrapWord

	// Preselect the download of an earlier session, else the default variant.
	idx := 0
	dest := ""
	if r := m.DL; r != nil {
		dest = r.Dir
		idx = choiceIndex(r.Variant.ID)
	} else if s := m.sh.Settings; s.DownloadDir != "" {
		dest = s.DownloadDir
		idx = choiceIndex(s.DownloadVariant)
	}
	p.defaultDest = m.defaultDownloadDir(variants[idx])
	if dest == "" {
		dest = p.defaultDest
	}
	p.Dest.SetText(dest)
	p.variant.SetSelectedIndex(idx)

	browse := widgets.NewTipButton(m.sh.Tips, theme.FolderOpenIcon(), "Choose the download folder", func() {
		m.BrowseFolder("Choose where to download the model", p.Dest.Text, func(dir string) { p.Dest.SetText(dir) })
	})
	browse.Importance = widget.MediumImportance
	// The progress follows the buttons directly, so it is in view on a short screen; the
	// token, needed only for gated models, comes after it.
	p.Box = container.NewVBox(
		shell.SectionTitle("Download a model"),
		p.variant,
		p.note,
		container.NewBorder(nil, nil, nil, browse, p.Dest),
		container.NewHBox(p.start, p.Pause),
		p.Bar, p.Busy, p.Detail, p.msg,
		container.NewBorder(nil, nil, nil, p.remember, p.token),
		shell.Hint("Gated models need a free Hugging Face account, an accepted licence and a read token ("+tokensPage+")."),
		p.cached,
	)
	m.dlPanels = append(m.dlPanels, p)
	p.refresh(m)
	p.refreshCached(m)
	return p, func() {
		for i, q := range m.dlPanels {
			if q == p {
				m.dlPanels = append(m.dlPanels[:i], m.dlPanels[i+1:]...)
				return
			}
		}
	}
}

// Selected is the download chosen in the menu (download.Choices).
func (p *DownloadPanel) Selected() download.Variant {
	vs := download.Choices()
	return vs[min(max(p.variant.SelectedIndex(), 0), len(vs)-1)]
}

// refresh shows the session's download state in p (UI goroutine).
func (p *DownloadPanel) refresh(m *Model) {
	r := m.DL
	running := r != nil && r.Running
	for _, w := range []fyne.Disableable{p.variant, p.Dest, p.token, p.remember} {
		if running {
			w.Disable()
		} else {
			w.Enable()
		}
	}
	// While a download runs, its progress takes the place of the choice's note (in view on
	// a short screen).
	p.note.Hidden = running
	p.note.Refresh()
	dir := CleanDir(p.Dest.Text)
	mine := r != nil && r.Dir == dir
	switch {
	case running:
		p.start.SetText("Downloading…")
		p.start.Disable()
		p.Pause.Show()
	default:
		p.start.SetText(startLabel(r, dir))
		p.start.Enable()
		p.Pause.Hide()
	}
	p.Pause.SetText("Pause")
	if running && r.Last.TotalBytes <= 0 {
		p.Pause.SetText("Stop")
	}
	line := ""
	if r != nil && (running || mine) {
		line = downloadLine(r)
	}
	switch {
	case line == "":
		p.Bar.Hide()
		p.Busy.Hide()
	case r.Last.TotalBytes <= 0: // the size is not known yet
		p.Bar.Hide()
		if running {
			p.Busy.Show()
		} else {
			p.Busy.Hide()
		}
	default:
		p.Busy.Hide()
		p.Bar.SetValue(r.Last.Fraction())
		p.Bar.Show()
	}
	p.Detail.SetText(line)
	p.Detail.Hidden = line == ""
	p.Detail.Refresh()
	if running && r.offline {
		widgets.SetMarkdown(p.msg, "**No connection to Hugging Face.** Check that this computer is online; "+
			"the download keeps trying in the background.")
		p.msg.Show()
	} else if r != nil && mine && r.err != nil && !errors.Is(r.err, context.Canceled) {
		widgets.SetMarkdown(p.msg, downloadErrorText(r))
		p.msg.Show()
	} else {
		widgets.SetMarkdown(p.msg, "")
		p.msg.Hide()
	}
}

// refreshCached lists the copies already in the Hugging Face cache.
func (p *DownloadPanel) refreshCached(m *Model) {
	var objs []fyne.CanvasObject
	for _, v := range download.Variants() {
		for _, snap := range download.CachedSnapshots("", v.Repo) {
			name := filepath.Base(snap)
			if len(name) > 8 {
				name = name[:8]
			}
			b := widget.NewButtonWithIcon("Use existing copy", theme.ConfirmIcon(), func() {
				if m.SetDir(snap, true) == nil {
					m.sh.SetStatus("Using the copy of " + v.Title + " in the Hugging Face cache.")
					m.closeDialog()
				}
			})
			objs = append(objs, container.NewBorder(nil, nil, nil, b,
				widget.NewLabel(fmt.Sprintf("%s (cache snapshot %s)", v.Title, name))))
		}
	}
	if len(objs) > 0 {
		objs = append([]fyne.CanvasObject{shell.SectionTitle("Already downloaded with Hugging Face tools")}, objs...)
	}
	p.cached.Objects = objs
	p.cached.Refresh()
}

// downloadLine describes a download's progress in words.
func downloadLine(r *DownloadRun) string {
	p := r.Last
	switch {
	case r.err == nil && p.Phase == download.PhaseDone:
		return fmt.Sprintf("Downloaded %s · checking the folder…", download.FormatBytes(p.TotalBytes))
	case p.Phase == "" || p.Phase == download.PhaseListing || p.TotalBytes <= 0:
		switch {
		case r.Running:
			return "Asking Hugging Face for the list of files…"
		case errors.Is(r.err, context.Canceled):
			return "Stopped before the list of files arrived."
		}
		return ""
	}
	s := fmt.Sprintf("%s of %s", download.FormatBytes(p.Bytes), download.FormatBytes(p.TotalBytes))
	if !r.Running {
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			return "Stopped at " + s + "."
		}
		return "Paused at " + s + "."
	}
	switch p.Phase {
	case download.PhaseChecking:
		return "Checking files already here · " + s + " · " + p.File
	case download.PhaseVerifying:
		return "Verifying · " + s
	}
	if p.Rate > 0 {
		s += " · " + download.FormatBytes(int64(p.Rate)) + "/s"
	}
	if p.ETA > 0 {
		s += " · about " + humanize.Duration(p.ETA.Round(time.Second)) + " left"
	}
	if p.File != "" {
		s += " · " + p.File
	}
	if p.Note != "" {
		s += " · " + p.Note
	}
	return s
}

// downloadErrorText explains why a download stopped, in Markdown with the links to follow.
func downloadErrorText(r *DownloadRun) string {
	page := download.RepoPage(os.Getenv("HF_ENDPOINT"), r.Variant.Repo)
	again := startLabel(r, r.Dir)
	var he *download.HTTPError
	tokenSent := errors.As(r.err, &he) && he.TokenSent
	switch {
	case errors.Is(r.err, download.ErrAuth) && tokenSent:
		return "**The Hugging Face token was not accepted** (mistyped or expired?). Check it or create a new read token at [" +
			tokensPage + "](" + tokensPage + "), paste it above and press " + again + "."
	case errors.Is(r.err, download.ErrAuth):
		return "**This model needs a Hugging Face access token.** Accept the licence on [its page](" + page + ") while logged in, " +
			"create a read token at [" + tokensPage + "](" + tokensPage + "), paste it in the token field above and press " + again + "."
	case errors.Is(r.err, download.ErrForbidden):
		return "**Access to this model is not granted yet.** Open [its page](" + page + "), log in and accept the licence, " +
			"then press " + again + " (the token must be allowed to read gated repositories)."
	case errors.Is(r.err, download.ErrDiskFull):
		return fmt.Sprintf("**The disk is full.** The model needs about %s in total; free some space and press %s: "+
			"what was downloaded so far is kept.", humanize.Bytes(uint64(max(r.Variant.ApproxBytes, 0))), again)
	case noConnection(r.err):
		return "**No connection to Hugging Face.** Check that this computer is online, then press " + again + "."
	case errors.Is(r.err, errNotUsable):
		return "**The download finished but the folder is not usable:** " + mdEscape(r.err.Error())
	}
	return "**The download stopped:** " + mdEscape(shell.Sentence(r.err.Error())) + ". Press " + again + " to continue."
}

var errNotUsable = errors.New("the downloaded folder failed its check")

// mdEscape keeps Markdown syntax in error messages from being interpreted.
func mdEscape(s string) string {
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

// RefreshDownloads redraws every download panel.
func (m *Model) RefreshDownloads() {
	for _, p := range m.dlPanels {
		p.refresh(m)
	}
}

// startDownloadFrom starts (or resumes) the download chosen in p.
func (m *Model) startDownloadFrom(p *DownloadPanel) {
	dir := CleanDir(p.Dest.Text)
	if dir == "" {
		m.sh.ShowError(errors.New("choose a destination folder for the download"))
		return
	}
	v := p.Selected()
	token := strings.TrimSpace(p.token.Text)
	s := m.sh.Settings
	s.HFToken = ""
	if p.remember.Checked {
		s.HFToken = token
	}
	s.DownloadDir, s.DownloadVariant = dir, v.ID
	m.sh.Settings = s
	m.sh.Remember(s)
	m.StartDownload(v, dir, token)
}

// StartDownload fetches variant v into dir off the UI goroutine (UI.StartDownload).
func (m *Model) StartDownload(v download.Variant, dir, token string) {
	if m.DL != nil && m.DL.Running {
		m.sh.ShowError(errors.New("a download is already running"))
		return
	}
	if m.sh.ReadOnly && m.sh.InDataDir(dir) {
		m.sh.ShowError(fmt.Errorf("not downloading into %s: %w", dir, shell.ErrReadOnlyWindow))
		return
	}
	ctx, cancel := context.WithCancel(m.sh.Life)
	r := &DownloadRun{Variant: v, Dir: dir, Cancel: cancel, Running: true}
	if old := m.DL; old != nil && old.Dir == dir {
		r.Last = old.Last // keeps the bar in place until the first report
	}
	r.Last.Phase = download.PhaseListing
	m.DL = r
	m.RefreshDownloads()
	opts := m.hubOpts
	opts.Token = token
	opts.Progress = func(p download.Progress) { m.sh.Post(func() { m.downloadProgress(r, p) }) }
	base := http.DefaultTransport
	if opts.HTTPClient != nil {
		c := *opts.HTTPClient
		if c.Transport != nil {
			base = c.Transport
		}
		opts.HTTPClient = &c
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ForceAttemptHTTP2 = false // separate connections for parallel ranges, as hub does
		t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		t.MaxIdleConnsPerHost = max(opts.Connections, 4)
		t.ResponseHeaderTimeout = 60 * time.Second
		base = t
		opts.HTTPClient = &http.Client{}
	}
	var offline atomic.Bool
	opts.HTTPClient.Transport = watchTransport{base: base, report: func(off bool) {
		if offline.Swap(off) != off {
			m.sh.Post(func() {
				if m.DL == r && r.Running {
					r.offline = off
					m.RefreshDownloads()
				}
			})
		}
	}}
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		defer cancel()
		_, err := download.DownloadVariant(ctx, v, dir, opts)
		if err == nil {
			var rep *download.Report
			rep, err = download.Validate(ctx, dir, download.ValidateOptions{})
			if err == nil && !rep.OK() {
				err = fmt.Errorf("%w: %w", errNotUsable, rep.Err())
			}
		}
		if ctx.Err() != nil {
			err = context.Canceled
		}
		m.sh.Post(func() { m.downloadFinished(r, err) })
	}()
}

// PauseDownload stops the running download (UI.PauseDownload).
func (m *Model) PauseDownload() {
	if r := m.DL; r != nil && r.Running {
		r.Cancel()
		m.sh.SetStatus("Pausing the download…")
	}
}

// downloadProgress takes a progress report (UI goroutine).
func (m *Model) downloadProgress(r *DownloadRun, p download.Progress) {
	if m.DL != r || !r.Running {
		return
	}
	r.Last = p
	m.RefreshDownloads()
}

// downloadFinished shows how a download ended and selects the model (UI goroutine).
func (m *Model) downloadFinished(r *DownloadRun, err error) {
	r.Running, r.err, r.offline = false, err, false
	if m.DL != r {
		return
	}
	switch {
	case errors.Is(err, context.Canceled):
		m.sh.SetStatus("Download paused: press Resume download to continue (also after a restart).")
	case noConnection(err):
		m.sh.SetStatus("No connection to Hugging Face: the download stopped.")
	case err != nil:
		m.sh.SetStatus("The download stopped.")
	default:
		m.sh.Settings.DownloadDir, m.sh.Settings.DownloadVariant = "", ""
		if m.SetDir(r.Dir, true) == nil {
			m.sh.SetStatus(fmt.Sprintf("%s is downloaded, checked and ready.", r.Variant.Title))
			m.closeDialog()
		}
		m.DL = nil
	}
	m.RefreshDownloads()
}
