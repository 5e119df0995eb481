-- A conversation's title follows its strategy's root step until the
-- researcher names the conversation: title_set records that they did, and
-- from then on their title is kept whatever the strategy becomes.
ALTER TABLE conversations ADD COLUMN title_set boolean NOT NULL DEFAULT false;
