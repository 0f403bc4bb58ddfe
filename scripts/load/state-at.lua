-- wrk script: state reads at versions known to exist. READS_FILE lists one
-- game a line, `game_id <TAB> version` (its last version); each request
-- picks a game and a version in 1..version at random (seeded per thread,
-- so runs repeat) and asks GET /v1/games/{id}/state?at=N as a spectator.
-- Prints report.lua's RESULT line.

dofile(os.getenv("LOAD_DIR") .. "/report.lua")

local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

function init(args)
  games = {}
  for line in io.lines(os.getenv("READS_FILE")) do
    local id, version = line:match("^([^\t]+)\t(%d+)$")
    if id then games[#games + 1] = { id, tonumber(version) } end
  end
  math.randomseed(7919 * (index + 1))
end

function request()
  local game = games[math.random(#games)]
  return wrk.format("GET", "/v1/games/" .. game[1] .. "/state?at=" .. math.random(game[2]))
end
