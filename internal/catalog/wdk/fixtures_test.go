package wdk

// WDK-shaped fixtures for the fake site, with the quirks real sites show:
// 3-element vocabulary rows with null parents, a treeBox vocabulary under a
// synthetic "@@fake@@" root, maxSelectedCount -1, initialDisplayValue as
// the default, keys the client does not know, optional keys missing, and
// the boolean's parameter names embedding the record class's full name.

const fakeServiceInfo = `{
  "projectId": "PlasmoDB", "displayName": "PlasmoDB", "buildNumber": "68",
  "releaseDate": "2024-05-01T00:00:00Z", "startupTime": 1719000000000,
  "categoriesOntologyName": "Categories",
  "authentication": {"method": "OAUTH2", "oauthUrl": "https://eupathdb.org/oauth", "oauthClientId": "apiComponentSite"},
  "userProfileProperties": [{"name": "firstName", "displayName": "First Name", "isRequired": true}]
}`

const fakeRecordTypeNames = `["transcript", "pathway", "jbrowse-gene"]`

const fakeTranscriptRecordType = `{
  "urlSegment": "transcript", "fullName": "TranscriptRecordClasses.TranscriptRecordClass",
  "displayName": "Gene", "displayNamePlural": "Genes", "shortDisplayName": "Gene",
  "nativeDisplayName": "Transcript", "iconName": null, "useBasket": true,
  "recordIdAttributeName": "primary_key",
  "primaryKeyColumnRefs": ["gene_source_id", "source_id", "project_id"],
  "attributes": [
    {"name": "primary_key", "displayName": "Gene ID", "isSortable": true},
    {"name": "gene_product", "displayName": "Product Description"},
    {"name": "gene_type", "displayName": "Gene Type"},
    {"name": "gene_name", "displayName": "Gene Name or Symbol"},
    {"name": "organism", "displayName": "Organism"},
    {"name": "gene_location_text", "displayName": "Genomic Location (Gene)"}
  ],
  "tables": [{"name": "GoTerms"}],
  "searches": [{"urlSegment": "GenesByTaxon"}, {"urlSegment": "GenesByGoTerm"}],
  "formats": [], "properties": {}, "hasAllRecordsQuery": true
}`

const fakePathwayRecordType = `{
  "urlSegment": "pathway", "fullName": "PathwayRecordClasses.PathwayRecordClass",
  "displayName": "Metabolic Pathway", "displayNamePlural": "Metabolic Pathways",
  "recordIdAttributeName": "primary_key", "primaryKeyColumnRefs": ["source_id", "pathway_source"],
  "attributes": ["primary_key", "description"], "searches": [{"urlSegment": "PathwaysByName"}]
}`

// fakeSearches are the searchData of each search's details; lists are
// derived from them without "parameters".
var fakeSearches = map[string]string{
	"GenesByTaxon": `{
  "urlSegment": "GenesByTaxon", "fullName": "GeneQuestions.GenesByTaxon", "queryName": "GenesByTaxon",
  "displayName": "Organism", "shortDisplayName": "Organism",
  "summary": "Find all genes from one or more species/organism.",
  "outputRecordClassName": "transcript", "isAnalyzable": true, "isCacheable": true,
  "newBuild": "9", "reviseBuild": "29", "iconName": null,
  "defaultAttributes": ["primary_key", "organism", "gene_product"],
  "defaultSorting": [{"attributeName": "organism", "direction": "ASC"}],
  "dynamicAttributes": [{"name": "wdk_weight", "displayName": "Search Weight", "isSortable": true}],
  "filters": [], "groups": [{"name": "empty", "displayName": ""}], "properties": {},
  "summaryViewPlugins": [], "noSummaryOnSingleRecord": false,
  "paramNames": ["organism"],
  "parameters": [{
    "name": "organism", "displayName": "Organism", "help": "Choose organisms", "type": "multi-pick-vocabulary",
    "displayType": "treeBox", "isVisible": true, "group": "empty", "isReadOnly": false, "allowEmptyValue": false,
    "visibleHelp": "", "visibleHelpPosition": "above", "dependentParams": [],
    "initialDisplayValue": "[\"Plasmodium falciparum 3D7\"]",
    "minSelectedCount": 1, "maxSelectedCount": -1, "countOnlyLeaves": true, "depthExpanded": 0,
    "properties": {"organismProperty": ["true"]},
    "vocabulary": {"data": {"term": "@@fake@@", "display": "@@fake@@"}, "children": [
      {"data": {"term": "Plasmodiidae", "display": "Plasmodiidae"}, "children": [
        {"data": {"term": "Plasmodium falciparum 3D7", "display": "<i>P. falciparum</i> 3D7"}, "children": []},
        {"data": {"term": "Plasmodium vivax P01", "display": "<i>P. vivax</i> P01"}, "children": []}
      ]}
    ]}
  }]
}`,
	"GenesByGoTerm": `{
  "urlSegment": "GenesByGoTerm", "fullName": "GeneQuestions.GenesByGoTerm",
  "displayName": "GO Term", "shortDisplayName": "GO Term",
  "summary": "Find genes annotated with a Gene Ontology term.",
  "description": "Gene Ontology (GO) terms assigned by curators or computed from InterPro.",
  "outputRecordClassName": "transcript", "defaultAttributes": ["primary_key"], "dynamicAttributes": [],
  "paramNames": ["organism", "go_term_evidence", "go_term_slim", "go_typeahead", "go_term"],
  "parameters": [
    {"name": "organism", "displayName": "Organism", "type": "multi-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "dependentParams": [],
     "initialDisplayValue": "[\"Plasmodium falciparum 3D7\"]", "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["Plasmodium falciparum 3D7", "Plasmodium falciparum 3D7", null], ["Plasmodium vivax P01", "Plasmodium vivax P01", null]]},
    {"name": "go_term_evidence", "displayName": "Evidence", "type": "multi-pick-vocabulary", "displayType": "checkBox",
     "isVisible": true, "allowEmptyValue": false, "dependentParams": [],
     "initialDisplayValue": "[\"Curated\",\"Computed\"]", "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["Curated", "Curated", null], ["Computed", "Computed", null]]},
    {"name": "go_term_slim", "displayName": "Limit to GO Slim terms", "type": "single-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "dependentParams": ["go_typeahead"],
     "initialDisplayValue": "No", "minSelectedCount": 1, "maxSelectedCount": 1,
     "vocabulary": [["No", "No", null], ["Yes", "Yes", null]]},
    {"name": "go_typeahead", "displayName": "GO Term or GO ID", "type": "multi-pick-vocabulary", "displayType": "typeAhead",
     "isVisible": true, "allowEmptyValue": false, "dependentParams": [], "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["GO:0006412", "translation (GO:0006412)", null], ["GO:0006260", "DNA replication (GO:0006260)", null],
                    ["GO:0006281", "DNA repair (GO:0006281)", null], ["GO:0004672", "protein kinase activity (GO:0004672)", null]]},
    {"name": "go_term", "displayName": "GO term", "type": "string", "isVisible": false, "isReadOnly": true,
     "allowEmptyValue": true, "initialDisplayValue": "N/A", "length": 0, "isMultiLine": false, "isNumber": false}
  ]
}`,
	"GenesByText": `{
  "urlSegment": "GenesByText", "fullName": "GeneQuestions.GenesByText",
  "displayName": "Text (product name, notes, etc.)", "shortDisplayName": "Text",
  "summary": "Find genes by searching descriptive text.",
  "outputRecordClassName": "transcript",
  "paramNames": ["text_search_organism", "text_expression", "document_type", "text_fields", "timestamp"],
  "parameters": [
    {"name": "text_search_organism", "displayName": "Organism", "type": "multi-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "[\"Plasmodium falciparum 3D7\"]",
     "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["Plasmodium falciparum 3D7", "Plasmodium falciparum 3D7", null]]},
    {"name": "text_expression", "displayName": "Text term (use * as wildcard)", "type": "string",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "", "length": 4000},
    {"name": "document_type", "displayName": "Document type", "type": "single-pick-vocabulary", "displayType": "select",
     "isVisible": false, "isReadOnly": true, "allowEmptyValue": false, "dependentParams": ["text_fields"],
     "initialDisplayValue": "gene", "minSelectedCount": 1, "maxSelectedCount": 1,
     "vocabulary": [["gene", "Gene", null], ["est", "EST", null]]},
    {"name": "text_fields", "displayName": "Fields", "type": "multi-pick-vocabulary", "displayType": "checkBox",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "[\"primary_key\",\"product\"]",
     "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["primary_key", "Gene ID", null], ["Alias", "Gene alias", null], ["product", "Product description", null]]},
    {"name": "timestamp", "displayName": "timestamp", "type": "timestamp", "isVisible": false, "allowEmptyValue": false,
     "initialDisplayValue": "1719000000000"}
  ]
}`,
	"GenesByMolecularWeight": `{
  "urlSegment": "GenesByMolecularWeight", "fullName": "GeneQuestions.GenesByMolecularWeight",
  "displayName": "Molecular Weight", "shortDisplayName": "Mol Weight",
  "summary": "Find genes whose predicted protein has a molecular weight in a range.",
  "outputRecordClassName": "transcript",
  "paramNames": ["organism", "min_molecular_weight", "max_molecular_weight"],
  "parameters": [
    {"name": "organism", "displayName": "Organism", "type": "multi-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "[\"Plasmodium falciparum 3D7\"]",
     "minSelectedCount": 1, "maxSelectedCount": -1,
     "vocabulary": [["Plasmodium falciparum 3D7", "Plasmodium falciparum 3D7", null]]},
    {"name": "min_molecular_weight", "displayName": "Molecular weight >=", "type": "string", "isNumber": true,
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "10000"},
    {"name": "max_molecular_weight", "displayName": "Molecular weight <=", "type": "string", "isNumber": true,
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "50000"}
  ]
}`,
	"GenesByOrthologs": `{
  "urlSegment": "GenesByOrthologs", "fullName": "GeneQuestions.GenesByOrthologs",
  "displayName": "Orthologs", "shortDisplayName": "Orthologs",
  "description": "Transform a gene result into the orthologs of its genes in other organisms.",
  "outputRecordClassName": "transcript",
  "allowedPrimaryInputRecordClassNames": ["transcript"],
  "paramNames": ["gene_result", "organism", "isSyntenic"],
  "parameters": [
    {"name": "gene_result", "displayName": "Input result", "type": "input-step", "isVisible": true, "allowEmptyValue": false},
    {"name": "organism", "displayName": "Organism", "type": "multi-pick-vocabulary", "displayType": "treeBox",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "[\"Plasmodium falciparum 3D7\"]",
     "minSelectedCount": 1, "maxSelectedCount": -1, "countOnlyLeaves": true,
     "vocabulary": {"data": {"term": "@@fake@@", "display": "@@fake@@"}, "children": [
       {"data": {"term": "Plasmodiidae", "display": "Plasmodiidae"}, "children": [
         {"data": {"term": "Plasmodium falciparum 3D7", "display": "Plasmodium falciparum 3D7"}, "children": []},
         {"data": {"term": "Plasmodium vivax P01", "display": "Plasmodium vivax P01"}, "children": []}]}]}},
    {"name": "isSyntenic", "displayName": "Syntenic orthologs only", "type": "single-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "no", "minSelectedCount": 1, "maxSelectedCount": 1,
     "vocabulary": [["yes", "yes", null], ["no", "no", null]]}
  ]
}`,
	"boolean_question_TranscriptRecordClasses_TranscriptRecordClass": `{
  "urlSegment": "boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
  "fullName": "InternalQuestions.boolean_question_TranscriptRecordClasses_TranscriptRecordClass",
  "queryName": "bq_TranscriptRecordClasses_TranscriptRecordClass",
  "displayName": "Combine Gene results", "shortDisplayName": "Combine Gene results",
  "outputRecordClassName": "transcript",
  "allowedPrimaryInputRecordClassNames": ["transcript"], "allowedSecondaryInputRecordClassNames": ["transcript"],
  "dynamicAttributes": [{"name": "wdk_weight", "displayName": "Search Weight"}],
  "paramNames": ["bq_left_op_TranscriptRecordClasses_TranscriptRecordClass", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass", "bq_operator"],
  "parameters": [
    {"name": "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass", "displayName": "Left operand", "type": "input-step", "isVisible": true, "allowEmptyValue": false},
    {"name": "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass", "displayName": "Right operand", "type": "input-step", "isVisible": true, "allowEmptyValue": false},
    {"name": "bq_operator", "displayName": "Operator", "type": "single-pick-vocabulary", "displayType": "select",
     "isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "INTERSECT", "minSelectedCount": 1, "maxSelectedCount": 1,
     "vocabulary": [["UNION", "UNION", null], ["INTERSECT", "INTERSECT", null], ["MINUS", "LEFT_MINUS", null],
                    ["RMINUS", "RIGHT_MINUS", null], ["LONLY", "LEFT_ONLY", null], ["RONLY", "RIGHT_ONLY", null]]}
  ]
}`,
	"PathwaysByName": `{
  "urlSegment": "PathwaysByName", "fullName": "PathwayQuestions.PathwaysByName",
  "displayName": "Pathway Name", "outputRecordClassName": "pathway",
  "paramNames": ["pathway_name"],
  "parameters": [{"name": "pathway_name", "displayName": "Pathway name", "type": "string", "isVisible": true, "allowEmptyValue": false}]
}`,
}

// fakeSearchRecordType places each search.
var fakeSearchRecordType = map[string]string{
	"GenesByTaxon": "transcript", "GenesByGoTerm": "transcript", "GenesByText": "transcript",
	"GenesByMolecularWeight": "transcript", "GenesByOrthologs": "transcript",
	"boolean_question_TranscriptRecordClasses_TranscriptRecordClass": "transcript",
	"PathwaysByName": "pathway",
}

// fakeGene is one gene of the fake site; Transcripts > 1 makes its records
// appear more than once in reports, as on the live site.
type fakeGene struct {
	ID, Product, Type, Location string
	Transcripts                 int
}

var fakeGenes = []fakeGene{
	{"PF3D7_0100100", "erythrocyte membrane protein 1, PfEMP1", "protein_coding", "Pf3D7_01_v3: 29,510 - 37,126 (+)", 1},
	{"PF3D7_0102200", "ring-infected erythrocyte surface antigen", "protein_coding", "Pf3D7_01_v3: 97,000 - 99,000 (+)", 1},
	{"PF3D7_0201800", "60S ribosomal protein L7", "protein_coding", "Pf3D7_02_v3: 78,000 - 80,000 (-)", 2},
	{"PF3D7_0309600", "elongation factor 1-alpha", "protein_coding", "Pf3D7_03_v3: 410,000 - 412,000 (+)", 1},
	{"PF3D7_0414900", "DNA polymerase delta", "protein_coding", "Pf3D7_04_v3: 660,000 - 665,000 (-)", 1},
	{"PF3D7_1017500", "DNA repair protein RAD51", "protein_coding", "Pf3D7_10_v3: 700,000 - 702,000 (+)", 1},
	{"PF3D7_1123600", "tRNA-Ala", "tRNA_encoding", "Pf3D7_11_v3: 900,000 - 900,072 (+)", 1},
	{"PF3D7_1409500", "tRNA-Gly", "tRNA_encoding", "Pf3D7_14_v3: 380,000 - 380,071 (-)", 1},
}

// fakeGOSets are the genes (indexes into fakeGenes) of each GO term.
var fakeGOSets = map[string][]int{
	"GO:0006412": {1, 2, 3},
	"GO:0006260": {2, 3, 4},
	"GO:0006281": {4, 5},
	"GO:0004672": {0},
}
