package headless

import (
	"encoding/json"
	"io"

	"github.com/agentls/agentls/lspserver/command"
)

// SARIF 2.1.0 (OASIS), the log code-scanning tools read (A19): one run
// of the tool agentls, one result per review finding. Only the members
// agentls fills are declared; the schema is in testdata/sarif.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		Results     []sarifResult     `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifInvocation struct {
		ExecutionSuccessful bool `json:"executionSuccessful"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
		EndLine   int `json:"endLine,omitempty"`
	}
)

// sarifRuleID is the one rule agentls's findings come under: a model's
// review has no fixed rule set.
const sarifRuleID = "agentls/review"

// writeSARIF writes res's findings to w as a SARIF 2.1.0 log.
func writeSARIF(w io.Writer, res *command.Result, version string) error {
	results := []sarifResult{}
	for _, f := range res.Findings {
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.Path, URIBaseID: "%SRCROOT%"}}}
		if f.Line >= 1 {
			r := &sarifRegion{StartLine: f.Line}
			if f.EndLine >= f.Line {
				r.EndLine = f.EndLine
			}
			loc.PhysicalLocation.Region = r
		}
		results = append(results, sarifResult{RuleID: sarifRuleID, Level: sarifLevel(f.Severity),
			Message: sarifMessage{Text: f.Message}, Locations: []sarifLocation{loc}})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{Name: "agentls", Version: version, InformationURI: "https://github.com/agentls/agentls",
				Rules: []sarifRule{{ID: sarifRuleID, ShortDescription: sarifMessage{Text: "A finding of agentls review"}}}}},
			Invocations: []sarifInvocation{{ExecutionSuccessful: res.Status == command.StatusDone}},
			Results:     results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifLevel maps a finding's severity to a SARIF result level.
func sarifLevel(severity string) string {
	switch severity {
	case "error", "warning":
		return severity
	case "info", "hint":
		return "note"
	}
	return "error" // as AtLeast counts it
}
