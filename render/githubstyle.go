package render

import "github.com/alecthomas/chroma/v2"

// githubStyle is chroma's "github" style, the default style of
// goldmark-highlighting (its NewConfig().Style), copied entry for entry
// from styles/github.xml of github.com/alecthomas/chroma/v2 v2.27.0
// (MIT licence, Copyright (C) 2017 Alec Thomas). chroma's styles package
// would give it by name, but its init parses some 70 XML styles at every
// start of the binary. TestGithubStyle compares it with styles.Get, so a
// chroma upgrade that changes the style fails there.
var githubStyle = func() *chroma.Style {
	s, err := chroma.NewStyleBuilder("github").Counterpart("github-dark").AddAll(chroma.StyleEntries{
		chroma.Error:                "#f6f8fa bg:#82071e",
		chroma.Background:           "bg:#f7f7f7",
		chroma.Keyword:              "#cf222e",
		chroma.KeywordType:          "#cf222e",
		chroma.NameAttribute:        "#1f2328",
		chroma.NameBuiltin:          "#6639ba",
		chroma.NameBuiltinPseudo:    "#6a737d",
		chroma.NameClass:            "#1f2328",
		chroma.NameConstant:         "#0550ae",
		chroma.NameDecorator:        "#0550ae",
		chroma.NameEntity:           "#6639ba",
		chroma.NameFunction:         "#6639ba",
		chroma.NameLabel:            "bold #990000",
		chroma.NameNamespace:        "#24292e",
		chroma.NameOther:            "#1f2328",
		chroma.NameTag:              "#0550ae",
		chroma.NameVariable:         "#953800",
		chroma.NameVariableClass:    "#953800",
		chroma.NameVariableGlobal:   "#953800",
		chroma.NameVariableInstance: "#953800",
		chroma.LiteralString:        "#0a3069",
		chroma.LiteralStringRegex:   "#0a3069",
		chroma.LiteralStringSymbol:  "#032f62",
		chroma.LiteralNumber:        "#0550ae",
		chroma.Operator:             "#0550ae",
		chroma.Comment:              "#57606a",
		chroma.CommentMultiline:     "#57606a",
		chroma.CommentSingle:        "#57606a",
		chroma.CommentSpecial:       "#57606a",
		chroma.CommentPreproc:       "#57606a",
		chroma.GenericDeleted:       "#82071e bg:#ffebe9",
		chroma.GenericEmph:          "#1f2328",
		chroma.GenericInserted:      "#116329 bg:#dafbe1",
		chroma.GenericOutput:        "#1f2328",
		chroma.GenericUnderline:     "underline",
		chroma.Punctuation:          "#1f2328",
		chroma.TextWhitespace:       "#ffffff",
	}).Build()
	if err != nil {
		panic(err) // the entries above are constants
	}
	return s
}()
