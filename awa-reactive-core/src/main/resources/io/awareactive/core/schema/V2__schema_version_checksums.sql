-- awa-reactive schema, step 2: every applied step records its description and checksum.
--
-- Release 0.1.0 recorded the version of step 1 only. From here on each step records the SHA-256 checksum of its
-- file as shipped (before placeholders are filled), and an installer refuses a schema whose applied steps differ
-- from its own copies. Placeholders as in step 1, plus checksum:N, the checksum of step N as a string literal.
-- Changes the version table only: nothing that running workers or maintenance use.

ALTER TABLE {{schema}}.awa_reactive_schema_version RENAME COLUMN installed_at TO applied_at;
ALTER TABLE {{schema}}.awa_reactive_schema_version
    ADD COLUMN description text,
    ADD COLUMN checksum text;
UPDATE {{schema}}.awa_reactive_schema_version
SET description = 'rings', checksum = {{checksum:1}}
WHERE version = 1;
ALTER TABLE {{schema}}.awa_reactive_schema_version
    ALTER COLUMN description SET NOT NULL,
    ALTER COLUMN checksum SET NOT NULL;

-- Recorded by the installer or by the migration tool that runs this file.
INSERT INTO {{schema}}.awa_reactive_schema_version (version, description, checksum)
VALUES (2, 'schema version checksums', {{checksum:2}});
