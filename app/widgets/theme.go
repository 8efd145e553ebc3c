package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme is Kleinbild's look: Fyne's default theme (light or dark, as the system prefers)
// with the indigo-violet accent of the app icon.
func Theme() fyne.Theme { return kleinbildTheme{} }

type kleinbildTheme struct{}

var _ fyne.Theme = kleinbildTheme{}

func (kleinbildTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	accent := color.NRGBA{R: 0x5b, G: 0x4b, B: 0xe0, A: 0xff}
	if v == theme.VariantDark {
		accent = color.NRGBA{R: 0x82, G: 0x72, B: 0xf5, A: 0xff}
	}
	switch n {
	case theme.ColorNamePrimary, theme.ColorNameHyperlink:
		return accent
	case theme.ColorNameFocus:
		accent.A = 0x7f
		return accent
	case theme.ColorNameSelection:
		accent.A = 0x40
		return accent
	case theme.ColorNameForegroundOnPrimary:
		return color.White
	}
	return theme.DefaultTheme().Color(n, v)
}

// Font is the default theme's, but for monospace text with room for its underscore (see
// monoFont).
func (kleinbildTheme) Font(s fyne.TextStyle) fyne.Resource {
	if s.Monospace {
		return monoFont()
	}
	return theme.DefaultTheme().Font(s)
}

func (kleinbildTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

func (kleinbildTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }
