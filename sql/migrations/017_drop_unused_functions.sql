-- 017: functions nothing calls. CSV exports are written from a binary COPY (copyCsv.ts), not rendered in
-- SQL, so export_csv_text and its formula guard go; every process charges through charge_quota_leasing
-- (migration 011), so the two older entry points kept for processes of earlier versions go too.
drop function if exists export_csv_text(text);
drop function if exists export_neutralised(text);
drop function if exists charge_quota(uuid, text, timestamptz, integer);
drop function if exists charge_quota_batch(uuid, timestamptz, text[], integer[]);
