def test_ranked_clean_sweep_gives_plus_8_and_minus_3(service, api, cast):
    ids = [p.id for p in cast]
    r = service.post("/api/v1/matches/", {"mode": "ranked", "seats": ids, "first_trump_seat": 0})
    assert r.status_code == 201, r.data
    match_id = r.data["id"]
    for number in (1, 2, 3):
        r = service.post(
            f"/api/v1/matches/{match_id}/rounds/",
            {"number": number, "trump_seat": 0, "tricks": {"A": 7, "B": 3}},
        )
        assert r.status_code == 201, r.data
    r = api.get(f"/api/v1/matches/{match_id}/")
    assert r.data["status"] == "finalized"
    assert r.data["cups"] == {str(ids[0]): 8, str(ids[1]): -3, str(ids[2]): 8, str(ids[3]): -3}
