//! Property tests: any user text gives a valid FTS5 query or none.

use kb::search::query::fts_query;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_builds_a_query_sqlite_accepts(q in any::<String>()) {
        if let Some(fts) = fts_query(&q, true) {
            let conn = rusqlite_conn();
            let r: Result<i64, _> = conn.query_row(
                "SELECT count(*) FROM t WHERE t MATCH ?1", [&fts], |r| r.get(0));
            prop_assert!(r.is_ok(), "query {:?} from {:?}: {:?}", fts, q, r);
        }
    }

    #[test]
    fn identifiers_numbers_and_cjk_are_safe(q in r#"([A-Za-z_.,'\-0-9]{1,12}|FY[0-9]{2,4}|[1-4]Q[0-9]{2}|[0-9]{1,3}(,[0-9]{3}){1,3}|[密钥轮换キーの更新열쇠]{1,6}|"|\*|\(|:)( ([A-Za-z_.,'\-0-9]{1,12}|[密钥轮换]{1,4}|"|NEAR|\*)){0,8}"#) {
        if let Some(fts) = fts_query(&q, true) {
            let conn = rusqlite_conn();
            let r: Result<i64, _> = conn.query_row(
                "SELECT count(*) FROM t WHERE t MATCH ?1", [&fts], |r| r.get(0));
            prop_assert!(r.is_ok(), "query {:?} from {:?}: {:?}", fts, q, r);
        }
    }

    #[test]
    fn fts_syntax_soup_is_safe(q in r#"[a-z"*():^\-+ ]{0,40}|(NEAR|AND|OR|NOT|[a-z]+)( (NEAR|AND|OR|NOT|[a-z]+|"|\(|\)|\*|-|:)){0,10}"#) {
        if let Some(fts) = fts_query(&q, true) {
            let conn = rusqlite_conn();
            let r: Result<i64, _> = conn.query_row(
                "SELECT count(*) FROM t WHERE t MATCH ?1", [&fts], |r| r.get(0));
            prop_assert!(r.is_ok(), "query {:?} from {:?}: {:?}", fts, q, r);
        }
    }
}

fn rusqlite_conn() -> rusqlite::Connection {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61');
         INSERT INTO t(text) VALUES ('the quick brown fox'), ('near and or not');",
    )
    .unwrap();
    conn
}
