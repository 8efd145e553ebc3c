package modelui

import (
	"fmt"
	"os"
	"path/filepath"

	"kleinbild/app/humanize"
	"kleinbild/download"
	"kleinbild/engine"
)

// choiceNote is the line under the download menu: what the chosen download holds, its size
// and what it costs in image quality.
func choiceNote(v download.Variant) string {
	size := humanize.Bytes(uint64(max(v.ApproxBytes, 0)))
	if v.Quant == "" {
		return fmt.Sprintf("About %s: the model as Black Forest Labs publish it (bf16 weights), the reference quality.", size)
	}
	return fmt.Sprintf("About %s: the %s GGUF transformer and text encoder with the official VAE and tokenizer. %s", size, v.Quant, v.Quality)
}

// choiceIndex is the position of the download with the given ID in download.Choices (0, the
// default, when there is none).
func choiceIndex(id string) int {
	for i, v := range download.Choices() {
		if v.ID == id {
			return i
		}
	}
	return 0
}

// assembledPending reports whether an assembled download in dir (see engine.FolderFiles)
// left partial data: a state folder of one of its repositories holding more than the
// manifest, which a finished repository keeps alone.
func assembledPending(dir string) bool {
	for _, sub := range []string{"", string(engine.Transformer), string(engine.TextEncoder)} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub, download.StateDir))
		for _, e := range entries {
			if e.Name() != "manifest.json" {
				return true
			}
		}
	}
	return false
}
