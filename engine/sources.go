package engine

import (
	"kleinbild/engine/source"
	"kleinbild/engine/tokenizer"
)

// The model sources live in package source (engine/source: what a model is on disk, its
// kind, its required files). These names keep the engine's callers as they were.
type (
	Source      = source.Source
	ModelInfo   = source.ModelInfo
	Component   = source.Component
	Overrides   = source.Overrides
	PartFile    = source.PartFile
	Combination = source.Combination
)

// The components of a FLUX.2-klein model whose weights a Source holds (source.Component).
const (
	TextEncoder = source.TextEncoder
	Transformer = source.Transformer
	VAE         = source.VAE
)

// WeightComponents are the components with weights, in the order the pipeline uses them.
var WeightComponents = source.WeightComponents

// Inspect is source.Inspect.
func Inspect(dir string) (ModelInfo, error) { return source.Inspect(dir) }

// OpenModelSource is source.OpenModelSource.
func OpenModelSource(path string, o Overrides) (Source, error) {
	return source.OpenModelSource(path, o)
}

// OpenFolder is source.OpenFolder.
func OpenFolder(dir string) (Source, error) { return source.OpenFolder(dir) }

// FolderSource is source.FolderSource.
func FolderSource(info ModelInfo) Source { return source.FolderSource(info) }

// FolderFiles is source.FolderFiles.
func FolderFiles(dir string) Overrides { return source.FolderFiles(dir) }

// NewParts is source.NewParts.
func NewParts(base Source, o Overrides) (Source, error) { return source.NewParts(base, o) }

// ComfyRoot is source.ComfyRoot.
func ComfyRoot(dir string) string { return source.ComfyRoot(dir) }

// ComfyCombinations is source.ComfyCombinations.
func ComfyCombinations(root string, groups int) []Combination {
	return source.ComfyCombinations(root, groups)
}

// BundledTokenizer is source.BundledTokenizer.
func BundledTokenizer() (*tokenizer.Tokenizer, error) { return source.BundledTokenizer() }
