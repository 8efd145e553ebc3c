// Package widgets holds the Fyne pieces the app's components are built from and that know
// nothing of the app: the zoomable image (ZoomImage, with its view arithmetic in zoom.go),
// the wrapping rows layout (RowsLayout), tooltips (TipLayer, TipButton), the entry that
// takes the Generate shortcut (ShortcutEntry, with FieldWrapping and ClipRunes for long
// text), ShortName for long file names and the app's theme (Theme).
package widgets
