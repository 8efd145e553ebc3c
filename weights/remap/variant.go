package remap

import "strings"

// Variant is what can be told about a FLUX.2-klein model from its files.
type Variant struct {
	// Size is "4B" or "9B" when the transformer's width and depth are klein's, else "".
	Size string
	// Distilled is "distilled", "base", or "" when neither file names nor metadata tell:
	// both have the same tensors, so the weights cannot. The caller should then ask.
	Distilled string
}

// KleinVariant tells the klein variant from the transformer's hidden width and block counts
// (4B: 3072 wide, 5 double and 20 single blocks; 9B: 4096, 8 and 24) and from hints — file
// names, GGUF general.name values. Black Forest Labs names the undistilled models
// "FLUX.2-klein-base-4B" / "flux-2-klein-base-4b" and the distilled ones without "base", and
// the GGUF repackagings keep those names; a hint naming klein without "base" is taken as
// distilled.
func KleinVariant(hidden, double, single int, hints ...string) Variant {
	var v Variant
	switch {
	case hidden == 3072 && double == 5 && single == 20:
		v.Size = "4B"
	case hidden == 4096 && double == 8 && single == 24:
		v.Size = "9B"
	}
	klein := false
	for _, h := range hints {
		h = strings.ToLower(h)
		switch {
		case strings.Contains(h, "base") || strings.Contains(h, "undistilled"):
			v.Distilled = "base"
			return v
		case strings.Contains(h, "distilled"):
			v.Distilled = "distilled"
		case strings.Contains(h, "klein"):
			klein = true
		}
	}
	if v.Distilled == "" && klein {
		v.Distilled = "distilled"
	}
	return v
}
