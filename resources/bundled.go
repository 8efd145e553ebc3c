// Package resources holds Kleinbild's bundled assets: the application icon and a few
// monochrome SVG icons (drawn in black; wrap them in theme.NewThemedResource to follow the
// theme's foreground colour).
package resources

//go:generate go run ./internal/mkicon -o icon.png -size 512

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

var (
	//go:embed icon.png
	iconPNG []byte
	//go:embed dice.svg
	diceSVG []byte
	//go:embed lock.svg
	lockSVG []byte
	//go:embed lock-open.svg
	lockOpenSVG []byte
	//go:embed sparkles.svg
	sparklesSVG []byte
	//go:embed swap.svg
	swapSVG []byte
)

// Icon is the 512×512 application icon.
var Icon = &fyne.StaticResource{StaticName: "icon.png", StaticContent: iconPNG}

// Dice is a die, for "random seed".
var Dice = &fyne.StaticResource{StaticName: "dice.svg", StaticContent: diceSVG}

// Lock is a closed padlock, for "seed locked".
var Lock = &fyne.StaticResource{StaticName: "lock.svg", StaticContent: lockSVG}

// LockOpen is an open padlock, for "new seed each run".
var LockOpen = &fyne.StaticResource{StaticName: "lock-open.svg", StaticContent: lockOpenSVG}

// Sparkles are two four-pointed stars, for "generate".
var Sparkles = &fyne.StaticResource{StaticName: "sparkles.svg", StaticContent: sparklesSVG}

// Swap is a pair of opposite arrows, for "swap width and height".
var Swap = &fyne.StaticResource{StaticName: "swap.svg", StaticContent: swapSVG}
