package source

import (
	"fmt"
	"path"
	"strings"
)

// Problem is a file of a model that is absent or cannot be read (ModelInfo.Problems).
// Front ends word it from its fields; String is the command line's wording.
type Problem struct {
	// Path is the file, relative to the model folder with slashes ("vae/config.json"); for
	// NoFile the component's name.
	Path string
	// Component is the component the file belongs to ("" for the folder's own files:
	// model_index.json, the scheduler's and the tokenizer's).
	Component Component
	Kind      ProblemKind
	// Err is why an Unreadable file cannot be read.
	Err error
}

// ProblemKind is what is wrong with a Problem's file.
type ProblemKind int

const (
	// Missing: the file is absent.
	Missing ProblemKind = iota
	// MissingWeights: the component's weights are absent: neither Path nor Path+".index.json"
	// with its shards is there.
	MissingWeights
	// Unreadable: the file is there but cannot be read (Err).
	Unreadable
	// NoFile: a model assembled from files has none for the component: one must be given.
	NoFile
)

// String words p as the command line says it (NoFile names its flag).
func (p Problem) String() string {
	switch p.Kind {
	case MissingWeights:
		return fmt.Sprintf("%s (or %s.index.json with its shards)", p.Path, path.Base(p.Path))
	case Unreadable:
		return fmt.Sprintf("%s (unreadable: %v)", p.Path, p.Err)
	case NoFile:
		return fmt.Sprintf("%s (give a file with %s)", p.Path, componentFlag[p.Component])
	}
	return p.Path
}

// In reports whether p's file lies in folder dir of the model ("tokenizer").
func (p Problem) In(dir string) bool { return strings.HasPrefix(p.Path, dir+"/") }

// missingPaths are the problems' Paths.
func missingPaths(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// componentOf is the weight component whose folder holds rel ("" for none).
func componentOf(rel string) Component {
	for _, c := range WeightComponents {
		if strings.HasPrefix(rel, string(c)+"/") {
			return c
		}
	}
	return ""
}
