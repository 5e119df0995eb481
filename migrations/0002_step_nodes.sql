-- A delegation plan may reuse a step the conversation's strategy already
-- has (a follow-up edits what exists): its node is of kind 'step'.

ALTER TABLE delegation_nodes DROP CONSTRAINT delegation_nodes_kind_check;
ALTER TABLE delegation_nodes
    ADD CONSTRAINT delegation_nodes_kind_check CHECK (kind IN ('task', 'combine', 'step'));
