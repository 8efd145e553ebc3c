package source

import (
	"os"
	"path/filepath"
)

// PathKind is what a path holds as a model, as Kind decides it.
type PathKind int

// The kinds of model path.
const (
	// KindMissing: the path cannot be read (it does not exist, say).
	KindMissing PathKind = iota
	// KindFile: a single file, taken as a transformer (GGUF, BFL or ComfyUI file).
	KindFile
	// KindDiffusers: a folder with a model_index.json, Hugging Face's diffusers layout.
	KindDiffusers
	// KindComfy: a ComfyUI models folder, or the ComfyUI folder above models/ (ComfyRoot),
	// without a model_index.json.
	KindComfy
	// KindFolder: a folder of neither layout; it is opened as a diffusers folder, whose
	// checks name what is missing.
	KindFolder
)

// Kind says what path holds as a model: the one rule that OpenModelSource, the CLI and
// the app (a folder chosen, dropped or restored) follow, so that one folder is judged the
// same everywhere. It reads no weights.
func Kind(path string) PathKind {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return KindMissing
	case !st.IsDir():
		return KindFile
	}
	if _, err := os.Stat(filepath.Join(path, "model_index.json")); err == nil {
		return KindDiffusers
	}
	if ComfyRoot(path) != "" {
		return KindComfy
	}
	return KindFolder
}
