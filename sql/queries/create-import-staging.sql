-- Creates the transaction's staging table for imported facts (dropped at commit): a line's creative by the number the
-- import gave it (import_creatives), its day and numbers, and those of the organization's declared base metrics by slot
-- (null: it declares none).
create temporary table import_rows (
  line integer, creative integer, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}},
  declared double precision[]
) on commit drop
