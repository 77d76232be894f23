-- The instant a pull that starts after this statement can resume from (docs/decisions.md §6, changedSince): every fact
-- write it cannot see is stamped after it. The earlier of this statement's start and the instant of the oldest fact
-- writer still open (migration 021's advisory lock), less a microsecond, so that "written after" holds of each stamp.
-- Run on the primary, before the read's source is chosen (a standby it reads from has replayed at least this far).
-- Returns {resume}, RFC 3339 in UTC to the microsecond.
-- not null: resume
select to_char(
         (least(now(), (
           -- A bigint key is shown split: its high half as classid, its low half as objid (objsubid 1).
           select timestamptz '2020-01-01 00:00:00+00' + interval '1 microsecond' * min(((l.classid::bigint & 262143) << 32) | l.objid::bigint)
           from pg_locks l
           where l.locktype = 'advisory' and l.objsubid = 1 and (l.classid::bigint >> 18) = 1831
             and l.database = (select d.oid from pg_database d where d.datname = current_database())
         )) - interval '1 microsecond') at time zone 'UTC',
         'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as resume
