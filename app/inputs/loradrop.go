package inputs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"fyne.io/fyne/v2"

	"kleinbild/engine/lora"
	"kleinbild/internal/safefile"
)

// maxSafetensorsHeader is the largest safetensors header (JSON) the sniffer accepts, as
// the safetensors format itself limits it (100 MB).
const maxSafetensorsHeader = 100 << 20

// isSafetensors reports whether the file at path holds a safetensors file, by its content:
// an 8-byte little-endian header length that fits the file, followed by a JSON object. The
// name does not count (a dropped LoRA may be named anything; an image is never taken for
// one). Only regular files are opened, so a FIFO never blocks (any goroutine).
func isSafetensors(path string) bool {
	f, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [9]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	n := binary.LittleEndian.Uint64(head[:8])
	return n >= 2 && n <= maxSafetensorsHeader && n <= uint64(st.Size()-8) && head[8] == '{'
}

// DropAdapters takes the adapter files among dropped paths (by content, off the UI
// goroutine) and adds them; the other paths, with errs, go to rest (the references'
// handling) on the UI goroutine. The channel is closed once both are applied.
func (s *Adapters) DropAdapters(paths []string, errs []error, rest func([]string, []error) <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	sh := s.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		var adapters, others []string
		for _, p := range paths {
			if isSafetensors(p) {
				adapters = append(adapters, p)
			} else {
				others = append(others, p)
			}
		}
		sh.Post(func() {
			var waits []<-chan struct{}
			if len(adapters) > 0 {
				waits = append(waits, s.AddFiles(adapters, true))
			}
			if len(others) > 0 || len(errs) > 0 || len(adapters) == 0 {
				waits = append(waits, rest(others, errs))
			}
			go func() { // not in sh.BG: a post dropped at shutdown would keep it waiting
				for _, w := range waits {
					<-w
				}
				close(done)
			}()
		})
	}()
	return done
}

// safetensorsKeys lists the tensor names in the header of the safetensors file at path,
// reading the header only (any goroutine).
func safetensorsKeys(path string) ([]string, error) {
	f, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := binary.LittleEndian.Uint64(head[:])
	if n < 2 || n > maxSafetensorsHeader || n > uint64(st.Size()-8) {
		return nil, fmt.Errorf("%s: not a safetensors file", path)
	}
	var keys map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(f, int64(n))).Decode(&keys); err != nil {
		return nil, fmt.Errorf("%s: safetensors header: %w", path, err)
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		if k != "__metadata__" {
			names = append(names, k)
		}
	}
	return names, nil
}

// isAdapterFile reports whether the file at path is a LoRA or LoKr adapter, by the tensor
// names in its header: a model component (transformer, text encoder, VAE) has none of
// their factors (any goroutine).
func isAdapterFile(path string) bool {
	if !isSafetensors(path) {
		return false
	}
	keys, err := safetensorsKeys(path)
	return err == nil && slices.ContainsFunc(keys, lora.IsAdapterKey)
}

// RouteDrop hands files dropped onto the window to the part of it they are for: adapter
// files (by content, off the UI goroutine) to the Adapters section first, so that the
// model settings, which take weight files, never claim one; then model folders and files
// to model (which reports whether it took them), and the rest to rest (the references;
// UI goroutine). The channel is closed once the drop has been applied.
func (s *Adapters) RouteDrop(uris []fyne.URI, model func([]fyne.URI) bool, rest func([]fyne.URI) <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	sh := s.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		var adapters []string
		var others []fyne.URI
		for _, uri := range uris {
			if uri.Scheme() == "file" && isAdapterFile(uri.Path()) {
				adapters = append(adapters, uri.Path())
				continue
			}
			others = append(others, uri)
		}
		sh.Post(func() {
			var waits []<-chan struct{}
			if len(adapters) > 0 {
				waits = append(waits, s.AddFiles(adapters, true))
			}
			if len(others) > 0 && !model(others) {
				waits = append(waits, rest(others))
			}
			go func() { // not in sh.BG: a post dropped at shutdown would keep it waiting
				for _, w := range waits {
					<-w
				}
				close(done)
			}()
		})
	}()
	return done
}
