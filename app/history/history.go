// Package history keeps the recent prompts (history.json in the data folder): newest
// first, without repeats, at most Max of them. The app's prompt history menu shows them.
package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Limits of the history: the number of prompts kept, and the longest prompt kept (longer
// ones are not remembered), which keep the file far below safefile.MaxConfigBytes.
const (
	Max            = 50
	MaxPromptBytes = 8 << 10
)

// file is the stored form.
type file struct {
	Prompts []string `json:"prompts"`
}

// Add returns prompts with p in front (moved there when it was already in), at most Max
// long. A blank or over-long prompt leaves prompts as they are.
func Add(prompts []string, p string) []string {
	if strings.TrimSpace(p) == "" || len(p) > MaxPromptBytes {
		return prompts
	}
	out := []string{p}
	for _, q := range prompts {
		if q != p && len(out) < Max {
			out = append(out, q)
		}
	}
	return out
}

// Parse reads the stored form. Entries that Add would not keep (blank, over-long,
// repeated, beyond Max) are dropped rather than refused.
func Parse(raw []byte) ([]string, error) {
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range f.Prompts {
		if strings.TrimSpace(p) != "" && len(p) <= MaxPromptBytes && !slices.Contains(out, p) && len(out) < Max {
			out = append(out, p)
		}
	}
	return out, nil
}

// Load reads path. A missing file is an empty history; a damaged one gives an empty
// history and an error saying so (the next Save replaces it).
func Load(path string) ([]string, error) {
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the prompt history: %w", err)
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the prompt history %s is damaged and was reset: %w", path, err)
	}
	return p, nil
}

// Save writes prompts to path atomically.
func Save(path string, prompts []string) error {
	raw, err := json.MarshalIndent(file{Prompts: prompts}, "", "  ")
	if err != nil {
		return fmt.Errorf("save the prompt history: %w", err)
	}
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}
