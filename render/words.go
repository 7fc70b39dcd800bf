package render

// The words the renderer writes itself, in the book's language (Korean);
// the views' words are evaluation's (evaluate/words.go) and the
// verdicts' are package view's.

// ruleNote is the hover of a claim a probe decides by rule: its verdict
// restates the probe's definition, it is not a finding.
const ruleNote = "규칙으로 판정: 프로브가 정한 규칙에 따른 값이며, 측정으로 확인한 결과가 아닙니다"

// ruleWord marks a claim a probe decides by rule.
const ruleWord = "규칙"

// measuredWord introduces the values a claim was decided on.
const measuredWord = "측정값: "
